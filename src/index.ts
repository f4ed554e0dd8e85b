// Public library API of onejob.

export { ConfigError, loadConfig, validateConfig } from './config/loadConfig.js';
export type { OnejobConfig, OperationConfig, ProviderConfig } from './config/types.js';
export { createOnejob, type Onejob, type OnejobOptions, type TxOption } from './createOnejob.js';
export { migrate } from './db/migrate.js';
export { type ErrorCode, errorRegistry } from './errors/errorRegistry.js';
export { isOnejobError, OnejobError } from './errors/OnejobError.js';
export type { CreateJobRequest, CreateJobResult } from './jobs/createJob.js';
export { fingerprint } from './jobs/fingerprint.js';
export type { AttemptState, AttemptView, JobState, JobView } from './jobs/jobView.js';
