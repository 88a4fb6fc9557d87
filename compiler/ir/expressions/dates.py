"""ECMAScript time values: calendar arithmetic, Date.parse and Date.prototype.toString, as V8 does them.

A time value is epoch milliseconds as a float, NaN for an invalid date, with
V8's range checks. chartc renders with TZ=UTC, so local time is UTC: `year`
and `utcyear` agree, `timezoneoffset` is 0. This module works on numbers
only; the Vega functions that take any value (`datetime`, `year`, ...) read
their arguments with ToNumber in `functions` and call these.
"""
from __future__ import annotations

import math
import re

from .problems import Unsupported

MS_PER_DAY = 86400000.0
_MAX_TIME = 8.64e15
# Names of days and months, en-US, as V8 writes dates and Vega's default locale formats them.
WEEKDAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December")
DAY_NAMES = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (month 1-12)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """(year, month 1-12, day) of a day count since 1970-01-01."""
    days += 719468
    era = days // 146097
    day_of_era = days - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted + 2) // 5 + 1
    month = shifted + 3 if shifted < 10 else shifted - 9
    return year_of_era + era * 400 + (month <= 2), month, day


def year_of(time: float) -> int:
    """The year (UTC) of a finite Date's time, in milliseconds since 1970: any of JavaScript's years."""
    return _civil_from_days(math.floor(time / 86_400_000))[0]


def _double_to_integer(value: float) -> float:
    if value != value:
        return 0.0
    if math.isinf(value):
        return value
    return float(math.trunc(value)) + 0.0


def make_day(year: float, month: float, date: float) -> float:
    """V8's MakeDay: NaN outside its year and month bounds."""
    if not (math.isfinite(year) and math.isfinite(month) and math.isfinite(date)):
        return math.nan
    year, month, date = _double_to_integer(year), _double_to_integer(month), _double_to_integer(date)
    if not (-1000000 <= year <= 1000000 and -10000000 <= month <= 10000000):
        return math.nan
    whole_year, month_index = divmod(int(month), 12)
    return float(days_from_civil(int(year) + whole_year, month_index + 1, 1)) + date - 1


def make_time(hours: float, minutes: float, seconds: float, milliseconds: float) -> float:
    """MakeTime: the milliseconds of a time of day (NaN if any part is not finite; parts may overflow)."""
    if not all(math.isfinite(v) for v in (hours, minutes, seconds, milliseconds)):
        return math.nan
    return (_double_to_integer(hours) * 3600000.0 + _double_to_integer(minutes) * 60000.0
            + _double_to_integer(seconds) * 1000.0 + _double_to_integer(milliseconds))


def make_date(day: float, time: float) -> float:
    """MakeDate: a day number and a time of day as one time value (NaN if either is not finite)."""
    if not (math.isfinite(day) and math.isfinite(time)):
        return math.nan
    return time + day * MS_PER_DAY


def time_clip(time: float) -> float:
    """TimeClip: NaN beyond 8.64e15 ms either side of the epoch, else the value truncated to an integer."""
    if not (-_MAX_TIME <= time <= _MAX_TIME):
        return math.nan
    return _double_to_integer(time)


def time_from_parts(numbers: list[float]) -> float:
    """Date.UTC(...) and new Date(y, m, ...) before the clip, of the arguments read as numbers."""
    defaults = [math.nan, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    year, month, date, hours, minutes, seconds, ms = numbers + defaults[len(numbers):]
    if year == year and 0 <= _double_to_integer(year) <= 99:
        year = 1900 + _double_to_integer(year)
    return make_date(make_day(year, month, date), make_time(hours, minutes, seconds, ms))


_ISO_DATE = re.compile(
    r"(?:([+-])([0-9]{6})|([0-9]{4}))(?:-([0-9]{2})(?:-([0-9]{2}))?)?"
    r"(?:[Tt]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|[+-][0-9]{2}:?[0-9]{2})?)?")


def date_parse(text: str) -> float:
    """Date.parse for ECMAScript's date-time format, as V8 reads it.

    Date-only forms are UTC, date-times without an offset are local (UTC
    here); a day past the month's end rolls over (V8 checks only 1-31); any
    fraction of a second is cut to milliseconds; T24:00 is the next midnight.

    Raises:
        Unsupported: any other text (V8 then tries its own legacy parser).
    """
    match = _ISO_DATE.fullmatch(text)
    if not match:
        raise Unsupported("Date.parse", f"of {text[:40]!r}, which is not an ISO date")
    sign, wide, year, month, day, hours, minutes, seconds, fraction, zone = match.groups()
    if sign and wide == "000000":
        raise Unsupported("Date.parse", "of the year -000000")
    month_number, day_number = int(month or 1), int(day or 1)
    hour, minute, second = int(hours or 0), int(minutes or 0), int(seconds or 0)
    millis = int((fraction or "").ljust(3, "0")[:3])
    if not (1 <= month_number <= 12 and 1 <= day_number <= 31 and minute <= 59 and second <= 59):
        raise Unsupported("Date.parse", f"of {text[:40]!r}, whose fields are out of range")
    if hour > 24 or (hour == 24 and (minute or second or millis)):
        raise Unsupported("Date.parse", f"of {text[:40]!r}, whose hour is out of range")
    offset = 0
    if zone and zone != "Z":
        zone_hours, zone_minutes = int(zone[1:3]), int(zone[-2:])
        if zone_hours > 23 or zone_minutes > 59:
            raise Unsupported("Date.parse", f"of {text[:40]!r}, whose offset is out of range")
        offset = (zone_hours * 60 + zone_minutes) * (1 if zone[0] == "+" else -1)
    year_number = int(wide) * (-1 if sign == "-" else 1) if wide else int(year)
    day_value = make_day(float(year_number), float(month_number - 1), float(day_number))
    time = make_date(day_value, make_time(float(hour), float(minute - offset), float(second), float(millis)))
    return time_clip(time)


def date_fields(time: float) -> tuple[int, int, int, int, int, int, int, int]:
    """(year, month 0-11, day 1-31, hours, minutes, seconds, ms, weekday 0-6) of a valid time value."""
    whole = int(time)
    days, millis = divmod(whole, 86400000)
    year, month, day = _civil_from_days(days)
    return (year, month - 1, day, millis // 3600000, millis // 60000 % 60, millis // 1000 % 60, millis % 1000,
            (days + 4) % 7)


def date_string(time: float) -> str:
    """Date.prototype.toString in UTC, as V8 writes it."""
    if time != time:
        return "Invalid Date"
    year, month, day, hours, minutes, seconds, _, weekday = date_fields(time)
    year_text = f"{year:04d}" if year >= 0 else f"{year:05d}"
    return (f"{WEEKDAYS[weekday]} {MONTHS[month]} {day:02d} {year_text} "
            f"{hours:02d}:{minutes:02d}:{seconds:02d} GMT+0000 (Coordinated Universal Time)")
