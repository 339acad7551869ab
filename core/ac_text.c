/* Terminal-safe rendering of untrusted text. */
#include "ac_text.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Decodes one UTF-8 sequence at s (n bytes available). Returns its length
 * and the code point, or 0 when the bytes are not valid UTF-8. */
static size_t utf8_decode(uint32_t *out_cp, const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80) {
		*out_cp = s[0];
		return 1;
	} else if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		cp = s[0] & 0x1F;
		len = 2;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		cp = s[0] & 0x0F;
		len = 3;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		cp = s[0] & 0x07;
		len = 4;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	*out_cp = cp;
	return len;
}

/* Characters that are printable in theory but let a file rearrange or hide
 * what the operator sees: C1 controls, bidi marks, embeddings, overrides and
 * isolates, the line and paragraph separators (a terminal may break the line
 * there), and the invisible format characters (Unicode Cf and the fillers
 * that draw nothing): soft hyphen, combining grapheme joiner, zero-width
 * spaces and joiners, word joiner and invisible operators, interlinear
 * annotation marks, the BOM, the tag characters (U+E0000 block, which can
 * spell a hidden message) and the variation selectors but VS15/VS16 (text
 * and emoji presentation, common in ordinary text). */
static bool is_format_hazard(uint32_t cp)
{
	if (cp < 0x80)
		return false;
	return (cp >= 0x80 && cp <= 0x9F) || cp == 0x00AD || cp == 0x034F || cp == 0x061C ||
	       cp == 0x115F || cp == 0x1160 || cp == 0x17B4 || cp == 0x17B5 ||
	       (cp >= 0x180B && cp <= 0x180F) || (cp >= 0x200B && cp <= 0x200F) ||
	       (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) ||
	       cp == 0x3164 || (cp >= 0xFE00 && cp <= 0xFE0D) || cp == 0xFEFF || cp == 0xFFA0 ||
	       (cp >= 0xFFF9 && cp <= 0xFFFB) || (cp >= 0x1D173 && cp <= 0x1D17A) ||
	       (cp >= 0xE0000 && cp <= 0xE007F) || (cp >= 0xE0100 && cp <= 0xE01EF);
}

/* The index of the first byte from i on that may need rewriting: one
 * outside 0x20..0x7E, and outside '\n' and '\t' too when keep_lines. The
 * bulk of any text is plain, so it is taken 16 bytes at a time. */
static size_t plain_run(const unsigned char *s, size_t i, size_t len, bool keep_lines)
{
#ifdef __SSE2__
	const __m128i space_less = _mm_set1_epi8(0x1F), del = _mm_set1_epi8(0x7F);
	/* Without keep_lines both stand for a space, plain anyway. */
	const __m128i nl = _mm_set1_epi8(keep_lines ? '\n' : ' ');
	const __m128i tab = _mm_set1_epi8(keep_lines ? '\t' : ' ');

/* 0xFF in each byte of v that needs no rewriting. signed compare: bytes
 * from 0x80 are negative, so not above 0x1F. */
#define PLAIN_BYTES(v)                                                                        \
	_mm_or_si128(_mm_andnot_si128(_mm_cmpeq_epi8(v, del), _mm_cmpgt_epi8(v, space_less)),  \
		     _mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, tab)))

	/* 64 bytes a round while all are plain: one test for four loads. */
	while (len - i >= 64) {
		const __m128i *p = (const __m128i *)(s + i);
		__m128i all = _mm_and_si128(
			_mm_and_si128(PLAIN_BYTES(_mm_loadu_si128(p)), PLAIN_BYTES(_mm_loadu_si128(p + 1))),
			_mm_and_si128(PLAIN_BYTES(_mm_loadu_si128(p + 2)),
				      PLAIN_BYTES(_mm_loadu_si128(p + 3))));

		if (_mm_movemask_epi8(all) != 0xFFFF)
			break;
		i += 64;
	}
	while (len - i >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
		unsigned bad = (unsigned)_mm_movemask_epi8(PLAIN_BYTES(v)) ^ 0xFFFFu;

		if (bad)
			return i + (size_t)__builtin_ctz(bad);
		i += 16;
	}
#undef PLAIN_BYTES
#endif
	while (i < len && ((s[i] >= 0x20 && s[i] < 0x7F) ||
			   (keep_lines && (s[i] == '\n' || s[i] == '\t'))))
		i++;
	return i;
}

/* The length of a character that s[0] starts and s[0..avail) cuts short
 * while what is there could still become well-formed, else 0. */
static size_t cut_short(const unsigned char *s, size_t avail)
{
	size_t want = s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
		      : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;

	if (avail >= want)
		return 0;
	for (size_t i = 1; i < avail; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return want;
}

/* True for a well-formed 3-byte character in U+3000..U+D7FF (CJK, kana,
 * Hangul) other than U+3164, none of which is a hazard: text in those
 * scripts skips the general decoding. */
static bool cjk_char(const unsigned char *s, size_t avail)
{
	uint32_t cp;

	if (avail < 3 || (s[0] & 0xF0) != 0xE0 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
		return false;
	cp = (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
	return cp >= 0x3000 && cp < 0xD800 && cp != 0x3164;
}

/* The code unit of a surrogate's 3-byte form at s (ED A0..BF 80..BF:
 * how a lone surrogate read from JSON is held, see ac_json_exact.h), or 0. */
static unsigned encoded_surrogate(const unsigned char *s, size_t avail)
{
	if (avail < 3 || s[0] != 0xED || s[1] < 0xA0 || s[1] > 0xBF || (s[2] & 0xC0) != 0x80)
		return 0;
	return 0xD000u | (unsigned)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
}

/* The appends of ac_text_sanitize(), to an ac_buf. */
static int to_buf(const char *bytes, size_t len, void *ctx)
{
	return ac_buf_append(ctx, bytes, len);
}

/* Sanitises text[0..len) into emit, keeping '\n' and '\t' when
 * keep_lines; when more is true, a character cut short at the end is left
 * unread. Runs that need nothing go to emit straight from text, so a
 * stream writes them without a copy. *out_used receives the bytes read. */
static int sanitize(ac_text_sink emit, void *ctx, const char *text, size_t len, bool keep_lines,
		    bool more, size_t *out_used)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, run_start = 0;
	int rc = 0;

	while (i < len) {
		char shown[16];
		uint32_t cp;
		size_t n;
		unsigned unit;

		if ((i = plain_run(s, i, len, keep_lines)) == len)
			break;
		if (more && s[i] >= 0x80 && cut_short(s + i, len - i))
			break;
		if (cjk_char(s + i, len - i)) {
			do
				i += 3;
			while (cjk_char(s + i, len - i));
			continue;
		}
		n = utf8_decode(&cp, s + i, len - i);
		if (n > 1 && !is_format_hazard(cp)) {
			i += n;
			continue;
		}
		if (i > run_start && (rc = emit(text + run_start, i - run_start, ctx)))
			return rc;
		if (n == 0 && (unit = encoded_surrogate(s + i, len - i))) {
			/* The escape JSON.stringify writes for it: the code unit
			 * the text holds, not a character it stands for. */
			snprintf(shown, sizeof(shown), "\\u%04x", unit);
			n = 3;
		} else if (n == 0)
			snprintf(shown, sizeof(shown), "\\x%02X", s[i]);
		else if (cp < 0x20)
			snprintf(shown, sizeof(shown), "^%c", (char)(cp + '@'));
		else if (cp == 0x7F)
			snprintf(shown, sizeof(shown), "^?");
		else
			snprintf(shown, sizeof(shown), "<U+%04X>", (unsigned)cp);
		if ((rc = emit(shown, strlen(shown), ctx)))
			return rc;
		i += n ? n : 1;
		run_start = i;
	}
	*out_used = i;
	return i > run_start ? emit(text + run_start, i - run_start, ctx) : 0;
}

bool ac_text_is_utf8(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, n;
	uint32_t cp;

	while (i < len) {
		uint64_t word;

		/* ASCII, the common case, eight bytes at a time. */
		if (len - i >= 8) {
			memcpy(&word, s + i, 8);
			if (!(word & UINT64_C(0x8080808080808080))) {
				i += 8;
				continue;
			}
		}
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if (!(n = utf8_decode(&cp, s + i, len - i)))
			return false;
		i += n;
	}
	return true;
}

/* High bits in the bytes of w that are not printable ASCII: a byte from
 * 0x80, one below 0x20, a DEL (a zero byte of w ^ 0x7F...). A borrow can
 * mark a byte above a bad one too, never one when there is none: enough
 * to say whether any is. */
static inline uint64_t unplain_bits(uint64_t w)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), highs = ones * 0x80;
	uint64_t del = w ^ (ones * 0x7F);

	return (w | ((w - ones * 0x20) & ~w) | ((del - ones) & ~del)) & highs;
}

bool ac_text_plain(const char *text, size_t len)
{
	uint64_t bad = 0, w;
	uint32_t head, tail;

	if (len >= 64)
		return plain_run((const unsigned char *)text, 0, len, false) == len;
	/* A field is short: whole words only, the last one overlapping the
	 * one before, since a word put together through memory (a short
	 * copy, then a load) stalls the load: half this function's time in
	 * a query's output (issue 28, perf). */
	if (len >= 8) {
		for (size_t i = 0; i + 8 < len; i += 8) {
			memcpy(&w, text + i, 8);
			bad |= unplain_bits(w);
		}
		memcpy(&w, text + len - 8, 8);
		return (bad | unplain_bits(w)) == 0;
	}
	if (len >= 4) {
		memcpy(&head, text, 4);
		memcpy(&tail, text + len - 4, 4);
		return unplain_bits(head | (uint64_t)tail << 32) == 0;
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] < 0x20 || (unsigned char)text[i] >= 0x7F)
			return false;
	return true;
}

int ac_text_sanitize(ac_buf *out, const char *text, size_t len)
{
	size_t used;

	int rc = sanitize(to_buf, out, text, len, false, false, &used);

	/* An empty text still leaves out a (terminated) string. */
	return rc ? rc : ac_buf_append(out, "", 0);
}

int ac_text_stream_feed(ac_text_stream *st, const char *text, size_t len)
{
	size_t skip = 0, used;
	int rc;

	if (st->nheld) {
		/* The held bytes and enough of this piece to finish their
		 * character (a character is at most 4 bytes). */
		char joined[8];
		size_t k = st->nheld, take = len < 4 ? len : 4;

		memcpy(joined, st->held, k);
		memcpy(joined + k, text, take);
		if ((rc = sanitize(st->sink, st->sink_ctx, joined, k + take, true, true, &used)))
			return rc;
		st->nheld = 0;
		if (used < k) { /* still cut short: the whole piece is held */
			memcpy(st->held, joined + used, k + take - used);
			st->nheld = k + take - used;
			return 0;
		}
		skip = used - k;
	}
	if ((rc = sanitize(st->sink, st->sink_ctx, text + skip, len - skip, true, true, &used)))
		return rc;
	memcpy(st->held, text + skip + used, len - skip - used);
	st->nheld = len - skip - used;
	return 0;
}

int ac_text_stream_end(ac_text_stream *st)
{
	size_t used;
	int rc = sanitize(st->sink, st->sink_ctx, st->held, st->nheld, true, false, &used);

	st->nheld = 0;
	return rc;
}

int ac_text_json_safe(ac_buf *out, const char *json, size_t len)
{
	const unsigned char *s = (const unsigned char *)json;
	size_t i = 0, run_start = 0;
	int rc;

	while (i < len) {
		uint32_t cp;
		size_t n;

		/* Printable ASCII, the bulk, needs nothing: skipped in runs. */
		if ((i = plain_run(s, i, len, true)) == len)
			break;
		/* DEL stands only inside strings in JSON text, and jansson
		 * writes it raw: escape it as the controls below 0x20 are. */
		if (s[i] == 0x7F) {
			if ((rc = ac_buf_append(out, json + run_start, i - run_start)) ||
			    (rc = ac_buf_append(out, "\\u007f", 6)))
				return rc;
			run_start = ++i;
			continue;
		}
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		n = utf8_decode(&cp, s + i, len - i);
		if (n == 0) {
			i++; /* the scanner rejects this; stay total anyway */
			continue;
		}
		if (!is_format_hazard(cp)) {
			i += n;
			continue;
		}
		if ((rc = ac_buf_append(out, json + run_start, i - run_start)))
			return rc;
		/* Beyond U+FFFF (the tag characters) JSON needs a surrogate pair. */
		rc = cp > 0xFFFF ? ac_buf_printf(out, "\\u%04x\\u%04x",
						 0xD800 + ((cp - 0x10000) >> 10),
						 0xDC00 + ((cp - 0x10000) & 0x3FF))
				 : ac_buf_printf(out, "\\u%04x", (unsigned)cp);
		if (rc)
			return rc;
		i += n;
		run_start = i;
	}
	return ac_buf_append(out, json + run_start, len - run_start);
}
