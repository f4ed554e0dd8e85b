// The dashboard's actions. Each asks for confirmation in a modal dialog, calls the JSON API
// (the API token for the owner's jobs, the admin token for operator endpoints), and on a
// refusal keeps the dialog open with the server's problem document.
import { ApiError, api } from './api.js';
import { h, json } from './dom.js';

const statusLine = () => document.getElementById('status');

/**
 * Opens a confirmation dialog. `run(form)` performs the action; a refusal keeps the
 * dialog open with the server's problem document, success closes it and calls `done`.
 */
function confirmAction({ title, text, fields = [], confirm, run, done }) {
  const result = h('div', { class: 'result', 'data-testid': 'action-result' });
  const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-title' });
  const form = h(
    'form',
    {
      onsubmit: async (e) => {
        e.preventDefault();
        const button = form.querySelector('button[type="submit"]');
        button.disabled = true;
        result.replaceChildren(h('p', {}, 'Sending…'));
        try {
          const answer = await run(new FormData(form));
          dialog.close();
          dialog.remove();
          statusLine().textContent = `${title}: done`;
          await done?.(answer);
        } catch (error) {
          button.disabled = false;
          result.replaceChildren(problemView(error));
        }
      },
    },
    h('h2', { id: 'confirm-title' }, title),
    h('p', {}, text),
    fields,
    result,
    h(
      'p',
      { class: 'actions' },
      h('button', { type: 'submit' }, confirm),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () => {
            dialog.close();
            dialog.remove();
          },
        },
        'Keep as is',
      ),
    ),
  );
  dialog.append(form);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  (form.querySelector('input, select, textarea') ?? form.querySelector('button[type="submit"]')).focus();
}

/** A refusal as the server explained it: code and detail, then the whole problem document. */
export function problemView(error) {
  if (!(error instanceof ApiError)) return h('p', { class: 'error', role: 'alert' }, String(error));
  const hint =
    error.code === 'admin_token_required'
      ? h('p', {}, 'This action needs the operator (admin) token: forget the token and sign in with it.')
      : null;
  return h(
    'div',
    { class: 'error', role: 'alert', 'data-testid': 'problem' },
    h('p', {}, h('strong', {}, `Refused (${error.status} ${error.code})`), ': ', error.message),
    hint,
    h('details', { open: true }, h('summary', {}, 'Problem document'), json(error.problem)),
  );
}

export const actionButton = (label, onclick, attrs = {}) =>
  h('button', { type: 'button', class: 'action', onclick, ...attrs }, label);

export function abandonAction(job, attempt, refresh) {
  confirmAction({
    title: `Abandon attempt ${attempt.n}?`,
    text: `Attempt ${attempt.n} on ${attempt.provider} is ${attempt.state}. Abandoning it means it can never complete the job: a late result is discarded and recorded. The job then retries after its backoff, or fails if no attempts are left. What the provider already did is not undone.`,
    fields: [
      h(
        'label',
        {},
        'Reason (recorded with the job)',
        h('textarea', { name: 'reason', required: true, maxlength: 1000, rows: 2, id: 'abandon-reason' }),
      ),
    ],
    confirm: `Abandon attempt ${attempt.n}`,
    run: (form) =>
      api(`/v1/jobs/${encodeURIComponent(job.id)}/attempts/${attempt.n}/abandon`, {
        method: 'POST',
        body: { reason: String(form.get('reason')).trim() },
      }),
    done: refresh,
  });
}

export async function startAttemptAction(job, refresh) {
  // The providers this operation may use now: the primary, and fallbacks whose contract
  // verification passed (the failover gate). The server checks again.
  let choices = [];
  try {
    const data = await api('/v1/providers');
    choices = (data.items ?? []).flatMap((p) =>
      (p.operations ?? [])
        .filter((o) => o.operation === job.operation)
        .map((o) => ({ name: p.name, role: o.role, status: o.status, allowed: o.failoverAllowed })),
    );
  } catch {
    choices = [];
  }
  confirmAction({
    title: 'Start an attempt now?',
    text: `A new attempt of this ${job.operation} job starts now and waits for a worker. It is refused while another attempt of an exclusive job is live or unknown.`,
    fields: [
      h(
        'label',
        {},
        'Provider',
        h(
          'select',
          { name: 'provider', id: 'attempt-provider' },
          h('option', { value: '' }, 'next in order (the engine chooses)'),
          choices.map((c) =>
            h(
              'option',
              { value: c.name, disabled: !c.allowed },
              `${c.name} (${c.role}, ${c.status}${c.allowed ? '' : ': not verified, the failover gate is closed'})`,
            ),
          ),
        ),
      ),
    ],
    confirm: 'Start attempt',
    run: (form) => {
      const provider = String(form.get('provider') || '');
      return api(`/v1/jobs/${encodeURIComponent(job.id)}/attempts`, {
        method: 'POST',
        body: provider ? { provider } : {},
      });
    },
    done: refresh,
  });
}

export function cancelAction(job, refresh) {
  confirmAction({
    title: 'Cancel this job?',
    text: 'The job gets no outcome: live attempts are fenced out and can never complete it. What an in-flight provider call already did is not undone.',
    confirm: 'Cancel job',
    run: () => api(`/v1/jobs/${encodeURIComponent(job.id)}/cancel`, { method: 'POST' }),
    done: refresh,
  });
}

export function verifyAction(provider, operation, refresh) {
  confirmAction({
    title: `Verify ${provider} for ${operation}?`,
    text: `This runs the contract verification of ${operation} against ${provider}: it calls the provider with the operation's fixtures (which may cost money) and stores the report. Operators only: it uses the admin token.`,
    confirm: 'Run verification',
    run: (form) =>
      api(`/v1/providers/${encodeURIComponent(provider)}/verify`, {
        method: 'POST',
        admin: true,
        body: { operation: String(form.get('operation') ?? operation) },
      }),
    fields: [h('input', { type: 'hidden', name: 'operation', value: operation })],
    done: async (report) => {
      await refresh();
      document
        .querySelector('#main h2')
        ?.after(
          h(
            'p',
            { class: report.passed ? 'note ok' : 'error', role: 'status', 'data-testid': 'verify-summary' },
            report.summary ?? `${provider} for ${operation}: ${report.status}`,
          ),
        );
    },
  });
}

export function replayAction(deadLetter, refresh) {
  confirmAction({
    title: 'Replay this dead letter?',
    text: `The ${deadLetter.type} event goes back to ${deadLetter.publisher} with the same event id, so a consumer that did receive an earlier copy recognises it. Operators only: it uses the admin token.`,
    confirm: 'Replay',
    run: () =>
      api(`/v1/outbox/dead-letters/${encodeURIComponent(deadLetter.eventId)}/replay`, {
        method: 'POST',
        admin: true,
        body: { publisher: deadLetter.publisher },
      }),
    done: refresh,
  });
}
