-- The instant a job was asked to wait for (`runAt` on intake), kept as asked. The claim
-- reads run_after, which intake sets to the later of runAt and the time of intake, and
-- which a retry's backoff moves; run_at is what the job view shows. Added without a
-- default: existing rows read NULL (no runAt was asked) and the table is not rewritten.
ALTER TABLE onejob.jobs ADD COLUMN run_at timestamptz;
