// A date custom field's bounds are timestamps and a date is its day's midnight (UTC): the first and
// last whole days the bounds allow, as YYYY-MM-DD, for the check and for the page's date picker.
const DAY_SECONDS = 86_400;

export function firstDayAllowed(ge: number): string {
  return isoDay(Math.ceil(ge / DAY_SECONDS));
}

export function lastDayAllowed(le: number): string {
  return isoDay(Math.floor(le / DAY_SECONDS));
}

function isoDay(day: number): string {
  return new Date(day * DAY_SECONDS * 1000).toISOString().slice(0, 10);
}
