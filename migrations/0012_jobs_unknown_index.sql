-- Each worker recounts the onejob_jobs_unknown gauge every 10 s
-- (src/attempts/workerHousekeeping.ts). Without an index on the state, that count read the
-- whole jobs table: 20 ms at 60,000 jobs on a small machine, and in proportion beyond, per
-- worker, forever. Unknown jobs are few and short-lived (a reconciliation settles them), so
-- a partial index holding only them keeps the count at the size of the answer.
CREATE INDEX jobs_unknown ON onejob.jobs (id) WHERE state = 'unknown';
