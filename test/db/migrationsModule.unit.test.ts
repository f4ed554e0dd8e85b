import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  MODULE_PATH,
  readMigrationFiles,
  renderMigrationsModule,
} from '../../scripts/generateMigrations.mjs';
import { MIGRATIONS } from '../../src/generated/migrations.js';

// Released migrations never change: a database that applied one would not see the edit.
// To change the schema, add a new migration and pin its hash here.
const RELEASED: Record<string, string> = {
  '0001_core': 'fd4f4bc54080bbc82b04129840d402fe72b503acacddea986a1892dc01b2c66f',
  '0002_attempts': '5d2b19a02db7325e589968ab851cf609406aee2bb8512ba11750c4f1dc52ff13',
  '0003_outbox': '640c857da3fd643c363ed6f424d07564658a79ffeb42a492cf33ca8d62d80744',
  '0004_inbox': '1fd9be0045514abef174cc837dc3eb8fbe8c1c3d2d67455b0765c1b0b623db10',
  '0005_ledger': 'ce496c6ac5ae111a84c0a29ba8255b197fa50c4159271f6b0ffd553b85bc82ab',
  '0006_providers': '8033a57d97c7cb8a42a1e4708df979949b575d24acda079831205a07feb7f3ef',
  '0007_attempt_costs': 'af9ed3b0f1753836d1495b1b120b61aeb6985ca9b7552ade6a800f6c0eee38cc',
  '0008_notify_after_commit': 'd8b0b31e29d835293cb309638a9892ec912fe1dead90d8cbfb573961393f24b5',
  '0009_ledger_safety': '1b379836d2eac6523b70b396193a37b75d82e40bef12191998303a34dfb53c2d',
  '0010_ledger_totals_per_statement': '81fd16008d5414a40633b85d85b7794e06b546ce8872eba045b23bc1678a66b5',
  '0011_indexes_for_kept_plans': 'f5fec2b009f66d7a416fbaefbf988b5363e87e367acb43fe4ba41ffb47097444',
  '0012_owner_in_every_key': 'c0dbb937ea887349d5cf9ebd9ad8fcedeafba79cebf7d4dbae92904e0f8a3e82',
  '0013_budgets_and_holds': 'a9914fc8629a23119af4321bdff399a9dbb4d60d7a3fc3aca09919f378ffbda1',
  '0014_fair_and_paced_work': '245c5a142dbcfeb0c1225ca018b837d7b24f42912207984fac19965e63a0940d',
  '0015_jobs_run_at': '62510b86754aebfffa26aa9ad7f6719083caab3975025dde8ee9a0913669acac',
  '0018_void_leaves_cost_to_poster': '44875d058cee2d59652df1ebacca8741d763e9ad85c33aaa4d5b43c0677f3297',
  '0019_provider_slot_holder_check': '1e39cd40271826fa78506da9cc53ace1215927f642909d72832131dfd385824f',
  '0020_attempt_holds_in_batches': '48f04c2c9356dbc7fceef8dc7dc83911778d057a8c370d0e80e8128cec225cdf',
  '0021_event_log': '9682ff63d4e575e69a6c6a1e7ae4c6471f02a3392925ed706cf6c82eb5adac2f',
  '0022_settle_in_place': 'f7b3031a0b083b970df49631ed0a946f54e10ccdcb221e7cd90a6cc8a9a13ec1',
  '0023_job_events_build_their_cloudevent':
    '2e8c978d755dd85b30e14c65a36e3cc2c04962fdffd20de9abf689e9d98a9131',
  '0024_window_walked_by_seq': '3054cc1dd4ccf0743f69dc3a61ad80a71dc4b3624d0ffb36fa79c78783e8cc98',
  '0025_one_live_list': '9bedd3fc7d70d4f386ef3b424dcdff6f77f9205db67bab49cc602a140089c3e8',
};

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('compiled migrations', () => {
  it('the compiled module is exactly what migrations/*.sql generate (run node scripts/generateMigrations.mjs)', () => {
    expect(readFileSync(MODULE_PATH, 'utf8')).toBe(renderMigrationsModule(readMigrationFiles()));
  });

  it('the compiled migrations carry the SQL files byte for byte, in version order', () => {
    const files = readMigrationFiles();
    expect(MIGRATIONS.map((m) => m.name)).toEqual(files.map((f) => f.name));
    // Numbers are reserved ahead for changes made side by side, so one may land before a
    // lower one: the runner applies every version a database lacks, in order.
    MIGRATIONS.forEach((m, i) => {
      expect(m.sql).toBe(files[i]!.sql);
      expect(m.version).toBe(Number.parseInt(m.name.slice(0, 4), 10));
      if (i > 0) expect(m.version).toBeGreaterThan(MIGRATIONS[i - 1]!.version);
    });
  });

  it.each(Object.entries(RELEASED))('released migration %s is never edited', (name, hash) => {
    const migration = MIGRATIONS.find((m) => m.name === name);
    expect(migration, `${name} is missing`).toBeDefined();
    expect(sha256(migration!.sql)).toBe(hash);
  });

  it('every migration has its hash pinned here once released', () => {
    expect(MIGRATIONS.map((m) => m.name)).toEqual(Object.keys(RELEASED));
  });
});
