// Output of `onejob demo`: for each scene, what a naive system would have done and what onejob did.

export interface DemoPrinter {
  scene(n: number, title: string, story: string): void;
  step(text: string): void;
  naive(text: string): void;
  onejob(text: string): void;
  link(jobId: string): void;
  note(text: string): void;
}

export function demoPrinter(
  baseUrl: string,
  write: (s: string) => void = (s) => process.stdout.write(s),
): DemoPrinter {
  return {
    scene: (n, title, story) => write(`\n${n}. ${title}\n   ${story}\n`),
    step: (text) => write(`   - ${text}\n`),
    naive: (text) => write(`   naive:  ${text}\n`),
    onejob: (text) => write(`   onejob: ${text}\n`),
    link: (jobId) => write(`   open:   ${baseUrl}/#/jobs/${jobId}\n`),
    note: (text) => write(`   note:   ${text}\n`),
  };
}
