// HTTP-date parsing (RFC 9110 §5.6.7) for `retry-after`.
//
//   parseHttpDate(value: string, nowMs: number): number | null
//     Epoch milliseconds of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), an obsolete RFC 850
//     date (`Sunday, 06-Nov-94 08:49:37 GMT`) or an asctime date (`Sun Nov  6 08:49:37 1994`);
//     null for anything else. `nowMs` only resolves RFC 850's two-digit years.
//
// Date.parse is not used: it accepts almost any text (`"1"`, `"x 2"`) and would turn garbage
// headers into real waits.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

export function parseHttpDate(value: string, nowMs: number): number | null {
  const text = value.trim();
  let m = IMF_FIXDATE.exec(text);
  if (m) return utc(+m[3], m[2], +m[1], +m[4], +m[5], +m[6]);
  m = RFC850_DATE.exec(text);
  if (m) return utc(fullYear(+m[3], nowMs), m[2], +m[1], +m[4], +m[5], +m[6]);
  m = ASCTIME_DATE.exec(text);
  if (m) return utc(+m[6], m[1], +m[2].trim(), +m[3], +m[4], +m[5]);
  return null;
}

// RFC 9110: a two-digit year more than 50 years in the future means the most recent past year
// with the same last two digits.
function fullYear(twoDigits: number, nowMs: number): number {
  const nowYear = new Date(nowMs).getUTCFullYear();
  const year = nowYear - (nowYear % 100) + twoDigits;
  return year > nowYear + 50 ? year - 100 : year;
}

function utc(year: number, monthName: string, day: number, hour: number, minute: number, second: number): number | null {
  const month = MONTHS.indexOf(monthName);
  // 60 is allowed for a leap second; anything else out of range is not a date.
  if (hour > 23 || minute > 59 || second > 60 || day < 1) return null;
  // Not Date.UTC: it reads years 0..99 as 1900..1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  // 31 Feb would roll over into March; such a date is garbage, not a date.
  if (date.getUTCDate() !== day) return null;
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}
