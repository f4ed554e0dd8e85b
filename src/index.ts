// Public library API of onejob.
export { createOnejob, type Onejob, type OnejobOptions, type TxOption } from './createOnejob.js';
export { OnejobError, isOnejobError } from './errors/OnejobError.js';
export { errorRegistry, type ErrorCode } from './errors/errorRegistry.js';
export { loadConfig, validateConfig, ConfigError } from './config/loadConfig.js';
export type { OnejobConfig, OperationConfig, ProviderConfig } from './config/types.js';
export { migrate } from './db/migrate.js';
export type { JobView, AttemptView, JobState, AttemptState } from './jobs/jobView.js';
export type { CreateJobRequest, CreateJobResult } from './jobs/createJob.js';
export { fingerprint } from './jobs/fingerprint.js';
