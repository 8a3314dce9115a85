// Wall-clock times in an IANA time zone (an account's `time_zone`) as instants, with Intl only.
//
// A local time that does not exist (the hour skipped when clocks go forward) is moved forward by the
// length of the gap: 02:30 on a day Europe/Stockholm jumps from 02:00 to 03:00 is 03:30 summer time. A
// local time that occurs twice (the hour repeated when clocks go back) is the earlier of the two
// instants (still summer time). This is the "compatible" choice of java.time and JavaScript's Temporal.

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      era: "short",
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** Epoch ms of a wall-clock time read as if it were UTC (any year, including 0-99 and before 1 AD). */
function utcOf(year: number, month: number, day: number, hour: number, minute: number, second = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/** The zone's offset from UTC at `instant` (ms, whole seconds). */
export function zoneOffset(timeZone: string, instant: number): number {
  const at = Math.floor(instant / 1000) * 1000;
  const parts: Record<string, string> = {};
  for (const part of formatFor(timeZone).formatToParts(at)) parts[part.type] = part.value;
  const yearOfEra = Number(parts.year);
  const year = parts.era === "BC" || parts.era === "B" ? 1 - yearOfEra : yearOfEra;
  const wall = utcOf(
    year,
    Number(parts.month),
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return wall - at;
}

const DAY = 86_400_000;

/**
 * The instant of a wall-clock time in `timeZone` (month 1-12); gaps and overlaps as described at the top
 * of this file. Throws a RangeError for a time zone Intl does not know.
 */
export function zonedInstant(
  timeZone: string,
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
): number {
  const wall = utcOf(year, month, day, hour, minute);
  const before = zoneOffset(timeZone, wall - DAY);
  const after = zoneOffset(timeZone, wall + DAY);
  const candidates = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((instant) => instant + zoneOffset(timeZone, instant) === wall);
  if (candidates.length > 0) return Math.min(...candidates);
  // In a gap: the offset before the change puts the time that far past the change.
  return wall - before;
}

/** "yyyy-MM-dd HH:mm" (shape and date already checked) in `timeZone` as an instant (epoch ms). */
export function parseLocalMinute(text: string, timeZone: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/.exec(text.trim());
  if (match === null) throw new RangeError(`not a yyyy-MM-dd HH:mm time: "${text}"`);
  const [, y, mo, d, h, mi] = match.map(Number) as [number, number, number, number, number, number];
  return zonedInstant(timeZone, y, mo, d, h, mi);
}
