// Progress lines on stderr, so stdout stays the result table.

export interface Progress {
  update(line: string): void;
  done(label: string): void;
  note(line: string): void;
}

export const silentProgress: Progress = { update() {}, done() {}, note() {} };

export function stderrProgress(): Progress {
  const tty = process.stderr.isTTY;
  let last = 0;
  return {
    update(line) {
      if (tty) process.stderr.write(`\r\x1b[K${line}`);
      else if (Date.now() - last >= 5000) {
        last = Date.now();
        process.stderr.write(`${line}\n`);
      }
    },
    done() {
      if (tty) process.stderr.write('\r\x1b[K');
      last = 0;
    },
    note(line) {
      process.stderr.write(`${tty ? '\r\x1b[K' : ''}${line}\n`);
    },
  };
}
