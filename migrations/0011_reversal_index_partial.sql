-- A transfer is reversed at most once: 0005 made (owner_id, reverses) a UNIQUE constraint.
-- Its index also matches the foreign-key check that every ledger entry runs against its
-- transfer (owner_id = $1 AND id = $2) on its leading column, and on a new database, with
-- no statistics yet, PostgreSQL costs it the same as the primary key. A session that plans
-- that check while the table is small can keep the plan: each new entry then reads every
-- transfer of its owner through the reversal index, and a transfer costs more the more
-- transfers exist (measured: a batch of 64 transfers went from 7 ms to 300 ms over 19,200
-- transfers in one session). Partial, the index holds only reversals and can serve only a
-- query that names `reverses`, so the check always uses the primary key. Uniqueness is the
-- same: rows without `reverses` never conflicted. The name stays, so a second reversal is
-- refused under the same constraint name. The ALTER locks the table until this migration
-- commits, so no reversal is written between the two statements.
ALTER TABLE onejob.ledger_transfers DROP CONSTRAINT ledger_transfers_reversed_once;
CREATE UNIQUE INDEX ledger_transfers_reversed_once ON onejob.ledger_transfers (owner_id, reverses)
  WHERE reverses IS NOT NULL;
