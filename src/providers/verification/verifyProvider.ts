// Contract verification: before a provider may take over an operation from its primary,
// it must show, on the operation's fixtures and at the contract's temperature, that
// (a) its output parses and honours the schema and rules, (b) the rendered prompt
// survives its tokenizer and fits its context window, and (c) a real request makes
// the full round trip through its adapter. Every run is stored with its contract hash.
import { v7 as uuidv7 } from 'uuid';
import type { OperationConfig, ProviderConfig } from '../../config/types.js';
import type { CheckName, CheckResult, FixtureReport, VerificationReport } from '../../contract/index.js';
import type { VerifyDeps } from '../../engine/engineDeps.js';
import { OnejobError } from '../../errors/OnejobError.js';
import type { Operation } from '../../operations/operationRegistry.js';
import { attemptCall } from '../attemptCall.js';
import { createProviders } from '../createProviders.js';
import { type ContractViolation, checkOutputValue, describeViolations } from '../inference/checkOutput.js';
import { checkTokenizer } from '../inference/checkTokenizer.js';
import { PromptRenderError, renderPrompt } from '../inference/renderPrompt.js';
import type { Provider, ProviderOutcome } from '../types.js';
import { contractHash, shownModelOf } from './contractHash.js';
import { recordVerification } from './verificationStore.js';

// The wire contract's shapes of a verification report (POST /v1/providers/{name}/verify).
export type { CheckName, CheckResult, FixtureReport, VerificationReport };

/** Options of a verification run. */
export interface VerifyOptions {
  /** Where to find the provider's adapter (default: built from the config). */
  providers?: { get(name: string): Provider | undefined };
  requestedBy?: 'api' | 'cli' | 'library';
  env?: NodeJS.ProcessEnv;
}

/** Low temperature unless the contract says otherwise: we test what production asks for. */
export const DEFAULT_CONTRACT_TEMPERATURE = 0;

const LLM_KINDS = new Set(['openai-compatible', 'anthropic']);

function reservedOutputTokens(provider: ProviderConfig): number {
  return provider.kind === 'anthropic' ? (provider.maxTokens ?? 1024) : 0;
}

async function tokenizerCheck(
  provider: ProviderConfig,
  operation: Operation,
  op: OperationConfig,
  input: Record<string, unknown>,
): Promise<CheckResult> {
  if (operation.promptOf && LLM_KINDS.has(provider.kind)) {
    const check = await checkTokenizer(provider, operation.promptOf(input), reservedOutputTokens(provider));
    return {
      name: 'tokenizer',
      status: check.waived ? 'waived' : check.passed ? 'passed' : 'failed',
      reason: check.reason,
      evidence: check.evidence as Record<string, unknown>,
    };
  }
  if (op.kind !== 'inference.chat' || !op.prompt) {
    return {
      name: 'tokenizer',
      status: 'not_applicable',
      reason: `operation kind ${op.kind} sends no prompt`,
    };
  }
  if (!LLM_KINDS.has(provider.kind)) {
    return {
      name: 'tokenizer',
      status: 'not_applicable',
      reason: `provider kind ${provider.kind} reads no tokens`,
    };
  }
  let prompt: ReturnType<typeof renderPrompt>;
  try {
    prompt = renderPrompt(op.prompt, input);
  } catch (error) {
    if (!(error instanceof PromptRenderError)) throw error;
    return {
      name: 'tokenizer',
      status: 'failed',
      reason: `the fixture cannot fill the prompt template: ${error.message}`,
    };
  }
  const check = await checkTokenizer(provider, prompt, reservedOutputTokens(provider));
  return {
    name: 'tokenizer',
    status: check.waived ? 'waived' : check.passed ? 'passed' : 'failed',
    reason: check.reason,
    evidence: check.evidence as Record<string, unknown>,
  };
}

function outcomeEvidence(outcome: ProviderOutcome, ms: number): Record<string, unknown> {
  return {
    outcome: outcome.kind,
    latencyMs: ms,
    ...(outcome.usage ? { usage: outcome.usage } : {}),
    ...(outcome.costMicros !== undefined ? { costMicros: outcome.costMicros } : {}),
    ...(outcome.kind !== 'success'
      ? { error: { code: outcome.error.code, message: outcome.error.message } }
      : {}),
  };
}

async function callChecks(
  provider: Provider,
  operation: Operation,
  op: OperationConfig,
  input: Record<string, unknown>,
  verificationId: string,
  index: number,
  temperature: number,
): Promise<[CheckResult, CheckResult]> {
  const started = Date.now();
  // Each check is a job of its own to the provider: its own key, one attempt.
  const outcome = await provider.call(
    attemptCall({ id: verificationId, input }, { id: uuidv7(), n: 1 }, operation, {
      idempotencyKey: `verify-${verificationId}-${index}`,
      signal: AbortSignal.timeout(operation.attemptTimeoutMs),
      temperature,
    }),
  );
  const evidence = outcomeEvidence(outcome, Date.now() - started);
  const violated = outcome.kind === 'failure' && outcome.error.code === 'output_contract_violation';
  const roundTrip: CheckResult =
    outcome.kind === 'success' || violated
      ? {
          name: 'round_trip',
          status: 'passed',
          reason: `the request went through the ${provider.kind} adapter and an answer came back`,
          evidence,
        }
      : {
          name: 'round_trip',
          status: 'failed',
          reason: `no usable answer: ${outcome.error.code}: ${outcome.error.message}`,
          evidence,
        };
  let contract: CheckResult;
  if (outcome.kind === 'success') {
    // Adapters of inference providers check already; others (http, simulated) are checked here.
    const checked = checkOutputValue(
      op,
      operation.contractValue ? operation.contractValue(outcome.result) : outcome.result,
    );
    contract = checked.ok
      ? {
          name: 'output_contract',
          status: 'passed',
          reason: 'the output parses and honours the output schema and every rule',
          evidence: { output: outcome.result },
        }
      : {
          name: 'output_contract',
          status: 'failed',
          reason: `the output breaks the contract: ${describeViolations(checked.violations)}`,
          evidence: { violations: checked.violations, output: checked.rejectedOutput },
        };
  } else if (violated) {
    const violations = (outcome.error.violations ?? []) as ContractViolation[];
    contract = {
      name: 'output_contract',
      status: 'failed',
      reason: `the output breaks the contract: ${outcome.error.message}`,
      evidence: { violations, output: outcome.rejectedOutput },
    };
  } else {
    contract = { name: 'output_contract', status: 'skipped', reason: 'no output came back to check' };
  }
  return [contract, roundTrip];
}

const counts = (s: CheckResult['status']) => s === 'passed' || s === 'waived' || s === 'not_applicable';

/**
 * Runs the contract verification of `providerName` for `operationName` and stores it.
 * Throws operation_unknown / provider_unknown when the pair is not configured.
 */
export async function verifyProvider(
  onejob: VerifyDeps,
  providerName: string,
  operationName: string,
  options: VerifyOptions = {},
): Promise<VerificationReport> {
  const operation = onejob.operations.get(operationName);
  const op = operation?.config;
  if (!operation || !op)
    throw new OnejobError('operation_unknown', `No operation "${operationName}" is configured.`);
  const providerConfig = onejob.config.providers[providerName];
  if (!providerConfig || !operation.providers.includes(providerName)) {
    throw new OnejobError(
      'provider_unknown',
      `Operation "${operationName}" lists no provider "${providerName}" (it lists ${operation.providers.join(', ')}).`,
    );
  }
  // The engine's own adapters when it has them, so verification exercises what production runs.
  const registry = options.providers ?? onejob.providers ?? createProviders(onejob.config, options.env);
  const provider = registry.get(providerName);
  if (!provider)
    throw new OnejobError(
      'provider_unknown',
      `Provider "${providerName}" (kind ${providerConfig.kind}) has no adapter.`,
    );

  const id = uuidv7();
  const startedAt = new Date();
  const hash = contractHash(op, providerConfig);
  const temperature = op.contract?.temperature ?? DEFAULT_CONTRACT_TEMPERATURE;
  const fixtures: FixtureReport[] = [];
  for (const [index, fixture] of (op.contract?.fixtures ?? []).entries()) {
    const tokenizer = await tokenizerCheck(providerConfig, operation, op, fixture.input);
    // A prompt the provider would misread proves nothing and may cost money: do not send it.
    const sent: [CheckResult, CheckResult] =
      tokenizer.status === 'failed'
        ? [
            { name: 'output_contract', status: 'skipped', reason: 'not sent: the tokenizer check failed' },
            { name: 'round_trip', status: 'skipped', reason: 'not sent: the tokenizer check failed' },
          ]
        : await callChecks(provider, operation, op, fixture.input, id, index, temperature);
    const checks = [sent[0], tokenizer, sent[1]];
    fixtures.push({ index, input: fixture.input, passed: checks.every((c) => counts(c.status)), checks });
  }
  const passed = fixtures.length > 0 && fixtures.every((f) => f.passed);
  const failedChecks = fixtures.flatMap((f) =>
    f.checks.filter((c) => c.status === 'failed').map((c) => `fixture ${f.index} ${c.name}: ${c.reason}`),
  );
  const summary =
    fixtures.length === 0
      ? `failed: operation ${operationName} has no contract fixtures, so nothing shows that ${providerName} honours its contract`
      : passed
        ? `verified: ${providerName} honoured the contract of ${operationName} on ${fixtures.length} fixture(s) at temperature ${temperature}`
        : `failed: ${failedChecks.join(' | ')}`;
  const report: Omit<VerificationReport, 'finishedAt'> = {
    id,
    provider: providerName,
    operation: operationName,
    model: shownModelOf(providerConfig),
    contractHash: hash,
    temperature,
    passed,
    status: passed ? 'verified' : 'failed',
    summary,
    fixtures,
    startedAt: startedAt.toISOString(),
  };
  const row = await recordVerification(onejob.pool, {
    id,
    provider: providerName,
    operation: operationName,
    contractHash: hash,
    model: report.model,
    passed,
    report,
    requestedBy: options.requestedBy ?? 'library',
    startedAt,
  });
  onejob.metrics.providerVerifications.inc({
    provider: providerName,
    operation: operationName,
    result: passed ? 'verified' : 'failed',
  });
  onejob.logger.info(
    { provider: providerName, operation: operationName, passed, contractHash: hash },
    'provider verification recorded',
  );
  return { ...report, finishedAt: row.finishedAt.toISOString() };
}
