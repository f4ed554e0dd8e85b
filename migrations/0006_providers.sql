-- Contract verifications: a provider proving, per operation, that it honours the
-- operation's output contract through its own tokenizer and adapter. The failover gate
-- reads the latest row for the current contract hash; rows are history and never edited.

CREATE TABLE onejob.provider_verifications (
  id             uuid        PRIMARY KEY,
  provider       text        NOT NULL,
  operation      text        NOT NULL,
  -- SHA-256 (hex) of the RFC 8785 canonical JSON of {prompt, outputSchema, rules, model}:
  -- changing any of them makes this verification stale.
  contract_hash  text        NOT NULL CHECK (contract_hash ~ '^[0-9a-f]{64}$'),
  model          text,
  passed         boolean     NOT NULL,
  -- Each check of each fixture with its evidence (see docs/providers.md).
  report         jsonb       NOT NULL,
  -- Who asked: the CLI, the HTTP API, or a library caller.
  requested_by   text        NOT NULL DEFAULT 'api',
  started_at     timestamptz NOT NULL,
  finished_at    timestamptz NOT NULL DEFAULT now()
);

-- The gate's question: the latest verification of (provider, operation, contract hash).
CREATE INDEX provider_verifications_latest
  ON onejob.provider_verifications (provider, operation, contract_hash, finished_at DESC, id DESC);
-- The status matrix: the latest verification of (provider, operation) under any hash.
CREATE INDEX provider_verifications_by_pair
  ON onejob.provider_verifications (provider, operation, finished_at DESC, id DESC);

CREATE TRIGGER provider_verifications_append_only BEFORE UPDATE OR DELETE ON onejob.provider_verifications
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_history_edit();
