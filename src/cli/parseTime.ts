/** An ISO timestamp, or a duration before now such as `30d`, `12h`, `90m`. */
export function parseTimeOrAgo(value: string, now = Date.now()): Date {
  const ago = /^(\d+)(s|m|h|d)$/.exec(value);
  if (ago) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[ago[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(now - Number(ago[1]) * unit);
  }
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new Error(`"${value}" is neither an ISO time nor a duration like 30d`);
  return new Date(t);
}
