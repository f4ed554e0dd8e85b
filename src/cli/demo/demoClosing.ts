// The end of `onejob demo`: the claim only when every scene showed it, else which scenes
// did not run in full and the one recipe that runs them all.
import { DEMO_SECRET_ENV } from './demoConfig.js';
import type { SceneOutcome } from './runDemo.js';

export const CLOSING_CLAIM = 'Every scene: one job per intent, one winner, one effect.';

/** One paste in one shell: the secrets are generated once, exported, and both processes share them. */
export const DEMO_RECIPE = [
  'To run all five scenes, stop the server (Ctrl-C) and paste this into one shell:',
  '',
  '  npx onejob demo --write-config demo.json',
  `  export ${DEMO_SECRET_ENV}="whsec_$(head -c 24 /dev/urandom | base64)"`,
  '  export ONEJOB_ADMIN_TOKEN="$(head -c 18 /dev/urandom | base64)"',
  '  ONEJOB_CONFIG=demo.json npx onejob serve > onejob.log 2>&1 &',
  '  until curl -sf http://127.0.0.1:8080/readyz > /dev/null; do sleep 0.5; done',
  '  npx onejob demo',
  '',
  'The server keeps running in the background (its log is onejob.log); `kill %1` stops it.',
].join('\n');

export function demoClosing(outcomes: readonly SceneOutcome[], baseUrl: string): string {
  const look = `Open ${baseUrl}/ to see the timelines.`;
  const notInFull = outcomes.flatMap((outcome, i) => (outcome === 'ran' ? [] : [`${i + 1} (${outcome})`]));
  if (notInFull.length === 0) return `${CLOSING_CLAIM} ${look}\n`;
  const ran = outcomes.flatMap((outcome, i) => (outcome === 'ran' ? [i + 1] : []));
  return [
    `${ran.length ? `Scenes run in full: ${ran.join(', ')}. ` : ''}Not in full: ${notInFull.join(', ')}. ${look}`,
    '',
    DEMO_RECIPE,
    '',
  ].join('\n');
}
