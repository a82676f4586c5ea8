// Calendar check for the dates model's output: whether a string is exactly YYYY-MM-DD naming a real
// day (proleptic Gregorian, leap years), and the note the page shows when a finished dates output is
// not one (a model can write 2013-02-30, which is certainly wrong). Pure functions, no DOM; the
// same rule as is_calendar_date in src/train/task_dates.cpp.

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether `y` is a leap year: divisible by 4, and not by 100 unless by 400. */
export function isLeapYear(y) {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Whether `s` is exactly "YYYY-MM-DD" (ASCII digits) naming a day of the calendar. */
export function isCalendarDate(s) {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(typeof s === 'string' ? s : '');
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= DAYS[mo - 1] + (mo === 2 && isLeapYear(y) ? 1 : 0);
}

/**
 * The note for a finished output of a model trained on the dates task ('' when there is nothing to
 * say): the output is not a calendar date. `task` is the model's task (models/index.json or the
 * checkpoint's metadata); an unfinished output is never flagged (it is still being written).
 */
export function calendarNote(task, output, done) {
  if (task !== 'dates' || !done || isCalendarDate(output)) return '';
  return `⚠ Not a calendar date: “${output}” names no real day, so this output is certainly wrong.`;
}
