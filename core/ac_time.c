/* UTC timestamp formatting and parsing without the locale or TZ. */
#include "ac_time.h"

#include "ac_error.h"
#include "ac_fs_calls.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t ac_time_now_ms(void)
{
	struct timespec ts;

	ac_fs_clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The calendar fields of a time, each already in its printable range. */
typedef struct {
	int year, month, day, hour, minute, second, millis;
} civil_time;

static void split_ms(civil_time *out, int64_t ms)
{
	time_t seconds = (time_t)(ms / 1000);
	int millis = (int)(ms % 1000);
	struct tm tm;

	if (millis < 0) {
		millis += 1000;
		seconds -= 1;
	}
	gmtime_r(&seconds, &tm);
	out->year = (tm.tm_year + 1900) % 10000;
	out->month = tm.tm_mon + 1;
	out->day = tm.tm_mday;
	out->hour = tm.tm_hour;
	out->minute = tm.tm_min;
	out->second = tm.tm_sec;
	out->millis = millis;
}

/* Writes value as exactly n digits at p; returns the position after. */
static char *put_digits(char *p, int value, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		p[i] = (char)('0' + value % 10);
		value /= 10;
	}
	return p + n;
}

/* Writes the date and time with the given separators (0: none). */
static char *put_time(char *p, const civil_time *t, char date_sep, char t_sep, char time_sep)
{
	p = put_digits(p, t->year, 4);
	if (date_sep)
		*p++ = date_sep;
	p = put_digits(p, t->month, 2);
	if (date_sep)
		*p++ = date_sep;
	p = put_digits(p, t->day, 2);
	if (t_sep)
		*p++ = t_sep;
	p = put_digits(p, t->hour, 2);
	if (time_sep)
		*p++ = time_sep;
	p = put_digits(p, t->minute, 2);
	if (time_sep)
		*p++ = time_sep;
	return put_digits(p, t->second, 2);
}

void ac_time_format_iso(char out[AC_TIME_ISO_LEN + 1], int64_t ms)
{
	civil_time t;
	char *p;

	split_ms(&t, ms);
	p = put_time(out, &t, '-', 'T', ':');
	*p++ = '.';
	p = put_digits(p, t.millis, 3);
	*p++ = 'Z';
	*p = '\0';
}

void ac_time_format_compact(char out[15], int64_t ms)
{
	civil_time t;

	split_ms(&t, ms);
	*put_time(out, &t, 0, 0, 0) = '\0';
}

void ac_time_format_file(char out[21], int64_t ms)
{
	civil_time t;
	char *p;

	split_ms(&t, ms);
	p = put_time(out, &t, 0, 'T', 0);
	*p++ = '.';
	p = put_digits(p, t.millis, 3);
	*p++ = 'Z';
	*p = '\0';
}

bool ac_time_parse_file(int64_t *out_ms, const char *name)
{
	char iso[AC_TIME_ISO_LEN + 1];

	if (strlen(name) < 20 || strspn(name, "0123456789") != 8 || name[8] != 'T' ||
	    name[15] != '.' || name[19] != 'Z')
		return false;
	snprintf(iso, sizeof(iso), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s.%.3sZ", name, name + 4,
		 name + 6, name + 9, name + 11, name + 13, name + 16);
	return ac_time_parse(out_ms, iso) == 0;
}

/* Reads exactly n decimal digits; -1 when any is not a digit. */
static int read_digits(const char *s, int n)
{
	int value = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		value = value * 10 + (s[i] - '0');
	}
	return value;
}

static int days_in_month(int year, int month)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return month == 2 && leap ? 29 : days[month - 1];
}

static bool valid_date(int year, int month, int day)
{
	return year >= 0 && month >= 1 && month <= 12 && day >= 1 &&
	       day <= days_in_month(year, month);
}

bool ac_time_is_iso(const char *t, size_t len)
{
	int year, month, day, hour, minute, second;

	if (len != AC_TIME_ISO_LEN || t[4] != '-' || t[7] != '-' || t[10] != 'T' ||
	    t[13] != ':' || t[16] != ':' || t[19] != '.' || t[23] != 'Z')
		return false;
	year = read_digits(t, 4);
	month = read_digits(t + 5, 2);
	day = read_digits(t + 8, 2);
	hour = read_digits(t + 11, 2);
	minute = read_digits(t + 14, 2);
	second = read_digits(t + 17, 2);
	return valid_date(year, month, day) && hour >= 0 && hour < 24 &&
	       minute >= 0 && minute < 60 && second >= 0 && second < 60 &&
	       read_digits(t + 20, 3) >= 0;
}

/* Days from 1970-01-01 to the given civil date (proleptic Gregorian). */
static int64_t days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

int ac_time_parse(int64_t *out_ms, const char *t)
{
	int year, month, day, hour = 0, minute = 0, second = 0, millis = 0;
	int zone_minutes = 0;
	size_t len = strlen(t), pos = 10;

	if (len < 10 || t[4] != '-' || t[7] != '-')
		goto bad;
	year = read_digits(t, 4);
	month = read_digits(t + 5, 2);
	day = read_digits(t + 8, 2);
	if (!valid_date(year, month, day))
		goto bad;
	if (pos < len && (t[pos] == 'T' || t[pos] == ' ')) {
		if (len < pos + 6 || t[pos + 3] != ':')
			goto bad;
		hour = read_digits(t + pos + 1, 2);
		minute = read_digits(t + pos + 4, 2);
		pos += 6;
		if (pos < len && t[pos] == ':') {
			if (len < pos + 3)
				goto bad;
			second = read_digits(t + pos + 1, 2);
			pos += 3;
			if (pos < len && t[pos] == '.') {
				int scale = 100, ndigits = 0;

				pos++;
				while (pos < len && t[pos] >= '0' && t[pos] <= '9') {
					if (ndigits++ < 3) {
						millis += (t[pos] - '0') * scale;
						scale /= 10;
					}
					pos++;
				}
				if (ndigits == 0)
					goto bad;
			}
		}
		if (hour < 0 || hour > 23 || minute < 0 || minute > 59 ||
		    second < 0 || second > 59)
			goto bad;
	}
	if (pos < len && t[pos] == 'Z') {
		pos++;
	} else if (pos < len && (t[pos] == '+' || t[pos] == '-')) {
		int zh, zm;

		if (len != pos + 6 || t[pos + 3] != ':')
			goto bad;
		zh = read_digits(t + pos + 1, 2);
		zm = read_digits(t + pos + 4, 2);
		if (zh < 0 || zh > 23 || zm < 0 || zm > 59)
			goto bad;
		zone_minutes = (zh * 60 + zm) * (t[pos] == '+' ? 1 : -1);
		pos += 6;
	}
	if (pos != len)
		goto bad;
	*out_ms = ((days_from_civil(year, month, day) * 86400 + hour * 3600 +
		    minute * 60 + second - (int64_t)zone_minutes * 60) * 1000) + millis;
	return 0;
bad:
	return ac_error_set(AC_EINVAL,
			    "'%s' is not a time like 2025-09-03T14:25:10.591Z", t);
}
