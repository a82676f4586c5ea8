// web/dates.js in Node: the calendar check against an independent day count (JavaScript's own Date
// arithmetic in UTC), its refusals of anything that is not exactly YYYY-MM-DD, and the page's note.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCalendarDate, isLeapYear, calendarNote } from '../../web/dates.js';

const pad = (n, w) => String(n).padStart(w, '0');

test('isCalendarDate agrees with Date.UTC on every day 1..32 of every month, 1900-2100', () => {
  let real = 0;
  for (let y = 1900; y <= 2100; y++) {
    for (let m = 1; m <= 12; m++) {
      for (let d = 1; d <= 32; d++) {
        const t = new Date(Date.UTC(y, m - 1, d));
        const exists = t.getUTCMonth() === m - 1 && t.getUTCDate() === d;  // Date rolls 02-30 over to March
        const s = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
        assert.equal(isCalendarDate(s), exists, s);
        real += exists;
      }
    }
  }
  assert.equal(real, 73414);  // 201 years of 365 days plus 49 leap days (1900 and 2100 are not leap years)
});

test('isCalendarDate: the issue\'s example and the leap-year rules', () => {
  assert.equal(isCalendarDate('2013-02-30'), false);
  assert.equal(isCalendarDate('2013-02-29'), false);
  assert.equal(isCalendarDate('2012-02-29'), true);
  assert.equal(isCalendarDate('2000-02-29'), true);
  assert.equal(isCalendarDate('1900-02-29'), false);
  assert.equal(isCalendarDate('2013-13-01'), false);
  assert.equal(isCalendarDate('2013-00-01'), false);
  assert.equal(isCalendarDate('2013-01-00'), false);
  assert.equal(isLeapYear(2024), true);
  assert.equal(isLeapYear(2100), false);
  assert.equal(isLeapYear(2400), true);
});

test('isCalendarDate refuses anything that is not exactly YYYY-MM-DD', () => {
  for (const s of ['', '2013-2-3', '2013-02-3', '20130203', '2013/02/03', ' 2013-02-03', '2013-02-03\n',
    '２０１３-02-03', '+013-02-03', '2013-0a-03', '2013-02-03-', null, undefined, 20130203]) {
    assert.equal(isCalendarDate(s), false, JSON.stringify(s));
  }
});

test('calendarNote: only a finished dates output that is no calendar date gets a note', () => {
  const note = calendarNote('dates', '2013-02-30', true);
  assert.match(note, /not a calendar date/i);
  assert.ok(note.includes('2013-02-30'));
  assert.equal(calendarNote('dates', '2013-02-28', true), '');
  assert.equal(calendarNote('dates', '2013-02-3', false), '');  // still being written
  assert.equal(calendarNote('en-ko', '2013-02-30', true), '');  // other tasks are not dates
  assert.equal(calendarNote(null, 'xyz', true), '');
  assert.match(calendarNote('dates', '2013-0', true), /not a calendar date/i);  // a finished fragment
});
