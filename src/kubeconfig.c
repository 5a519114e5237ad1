/*
 * kubeconfig.c
 *	  Connection settings from a kubeconfig file (scheduler.kubeconfig), as
 *	  kubectl and client-go read one: the current context (or
 *	  scheduler.kube_context) names a cluster and a user; the cluster gives
 *	  the server and its CA (a file or inline base64 data), the user a bearer
 *	  token (inline or a file) or a client certificate and key (files or
 *	  inline data).  Relative file names are relative to the kubeconfig's
 *	  folder, as client-go resolves them.
 *
 * What the scheduler cannot honour is refused with a message naming it,
 * never silently dropped: exec credential plugins (it runs no program),
 * auth-provider, basic authentication, impersonation, tls-server-name and
 * proxy-url.  Inline data stays in this process's memory and is handed to
 * libcurl as blobs: it never touches the disk.
 *
 * The file is YAML (what kubectl writes) or JSON.  The parser takes the
 * YAML that kubeconfigs are written in, block and flow collections, plain
 * and quoted scalars and comments, and refuses the rest (anchors, aliases,
 * tags, block scalars, several documents) with the line it stopped at.  It
 * never throws on bad input: the workers call it, and a bad file must be a
 * logged failure, not a crash loop.
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base64.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "storage/fd.h"

#include "kubeconfig.h"

#define MAX_KUBECONFIG (4 * 1024 * 1024)
#define MAX_DEPTH 64

/* ------------------------------------------------------------------------
 * The YAML subset
 * ------------------------------------------------------------------------
 */
typedef struct YLine
{
	int			indent;
	const char *start;			/* the content, after the indentation */
	const char *end;			/* the line's end (before \r\n) */
	int			lineno;
} YLine;

typedef struct YParser
{
	const char *text;
	const char *stop;
	YLine	   *lines;
	int			nlines;
	int			cur;
	int			depth;
	const char *at;				/* where a flow parse is (for its errors) */
	char	   *err;
} YParser;

static YNode *block(YParser *p, int indent);
static YNode *flow(YParser *p, const char **pos);

static YNode *
ynew(YKind kind)
{
	YNode	   *n = palloc0(sizeof(YNode));

	n->kind = kind;
	return n;
}

static void
yadd(YNode *c, char *key, YNode *val)
{
	if (c->n == c->cap)
	{
		c->cap = c->cap ? c->cap * 2 : 4;
		c->keys = c->keys ? repalloc(c->keys, sizeof(char *) * c->cap) : palloc(sizeof(char *) * c->cap);
		c->vals = c->vals ? repalloc(c->vals, sizeof(YNode *) * c->cap) : palloc(sizeof(YNode *) * c->cap);
	}
	c->keys[c->n] = key;
	c->vals[c->n] = val;
	c->n++;
}

/* the line number of a position in the text (counted on an error only) */
static int
line_of(YParser *p, const char *pos)
{
	int			n = 1;

	for (const char *c = p->text; c < pos && c < p->stop; c++)
		n += *c == '\n';
	return n;
}

/* The first error; lineno 0: the line of p->at */
static void
yerr(YParser *p, int lineno, const char *msg)
{
	if (p->err != NULL)
		return;
	if (lineno == 0 && p->at != NULL)
		lineno = line_of(p, p->at);
	p->err = lineno > 0 ? psprintf("line %d: %s", lineno, msg) : pstrdup(msg);
}

static void
yerr_at(YParser *p, const char *at, const char *msg)
{
	p->at = at;
	yerr(p, 0, msg);
}

static bool
blank_or_comment(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s == end || *s == '#';
}

/*
 * Cut the text into content lines: blank and comment lines left out, a
 * "---" document start taken, anything after a second document refused.
 */
static bool
split_lines(YParser *p)
{
	const char *s = p->text;
	int			lineno = 0;
	int			cap = 64;
	bool		seen_content = false;

	p->lines = palloc(sizeof(YLine) * cap);
	while (s < p->stop)
	{
		const char *nl = memchr(s, '\n', p->stop - s);
		const char *end = nl ? nl : p->stop;
		const char *c = s;

		lineno++;
		if (end > s && end[-1] == '\r')
			end--;
		while (c < end && *c == ' ')
			c++;
		if (c < end && *c == '\t' && !blank_or_comment(c, end))
		{
			yerr(p, lineno, "a tab in the indentation");
			return false;
		}
		if (!blank_or_comment(c, end))
		{
			size_t		len = end - c;

			if (c == s && len >= 3 && (strncmp(c, "---", 3) == 0 || strncmp(c, "...", 3) == 0) &&
				blank_or_comment(c + 3, end))
			{
				if (seen_content || c[0] == '.')
					break;		/* the document ends */
				seen_content = true;	/* an explicit start: allowed once */
			}
			else if (c == s && *c == '%')
			{
				yerr(p, lineno, "YAML directives are not supported");
				return false;
			}
			else
			{
				if (p->nlines == cap)
				{
					cap *= 2;
					p->lines = repalloc(p->lines, sizeof(YLine) * cap);
				}
				p->lines[p->nlines++] = (YLine) {(int) (c - s), c, end, lineno};
				seen_content = true;
			}
		}
		s = nl ? nl + 1 : p->stop;
	}
	return true;
}

static bool
is_item(const YLine *l)
{
	return l->start[0] == '-' && (l->start + 1 == l->end || l->start[1] == ' ');
}

/* A quoted scalar starting at *pos (on one line); *pos moves past it */
static char *
quoted(YParser *p, const char **pos, const char *end, int lineno)
{
	const char *s = *pos;
	char		q = *s++;
	StringInfoData b;

	initStringInfo(&b);
	for (;;)
	{
		if (s >= end || *s == '\n' || *s == '\r')
		{
			yerr(p, lineno, "a quoted string does not end on its line");
			return NULL;
		}
		if (*s == q)
		{
			if (q == '\'' && s + 1 < end && s[1] == '\'')
			{
				appendStringInfoChar(&b, '\'');
				s += 2;
				continue;
			}
			s++;
			break;
		}
		if (q == '"' && *s == '\\')
		{
			char		e = s + 1 < end ? s[1] : '\0';
			const char *rep = NULL;

			switch (e)
			{
				case '"':
					rep = "\"";
					break;
				case '\\':
					rep = "\\";
					break;
				case '/':
					rep = "/";
					break;
				case 'n':
					rep = "\n";
					break;
				case 't':
					rep = "\t";
					break;
				case 'r':
					rep = "\r";
					break;
				case 'u':
					{
						unsigned int cp = 0;
						unsigned char utf8[8] = {0};

						for (int i = 0; i < 4; i++)
						{
							char		h = s + 2 + i < end ? s[2 + i] : '\0';

							if (!isxdigit((unsigned char) h))
							{
								yerr(p, lineno, "a \\u escape needs four hex digits");
								return NULL;
							}
							cp = cp * 16 + (isdigit((unsigned char) h) ? h - '0' : (tolower((unsigned char) h) - 'a' + 10));
						}
						if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF))
						{
							yerr(p, lineno, "a \\u escape of NUL or of a surrogate");
							return NULL;
						}
						unicode_to_utf8((pg_wchar) cp, utf8);
						appendStringInfoString(&b, (char *) utf8);
						s += 6;
						continue;
					}
				default:
					break;
			}
			if (rep == NULL)
			{
				yerr(p, lineno, psprintf("the escape \\%c is not supported", e ? e : ' '));
				return NULL;
			}
			appendStringInfoString(&b, rep);
			s += 2;
			continue;
		}
		if (*s == '\0')
		{
			yerr(p, lineno, "a NUL byte");
			return NULL;
		}
		appendStringInfoChar(&b, *s++);
	}
	*pos = s;
	return b.data;
}

static YNode *
scalar_node(char *s, bool was_quoted)
{
	YNode	   *n;

	if (!was_quoted && (s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
						strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0))
		return ynew(Y_NULL);
	n = ynew(Y_SCALAR);
	n->str = s;
	return n;
}

/* what no plain scalar may start with here: refused by name */
static bool
bad_indicator(YParser *p, char c, int lineno)
{
	const char *what = NULL;

	switch (c)
	{
		case '&':
			what = "anchors (&) are not supported";
			break;
		case '*':
			what = "aliases (*) are not supported";
			break;
		case '!':
			what = "tags (!) are not supported";
			break;
		case '|':
		case '>':
			what = "block scalars (| and >) are not supported";
			break;
		case '@':
		case '`':
			what = "a plain value cannot start with @ or `";
			break;
		default:
			return false;
	}
	yerr(p, lineno, what);
	return true;
}

/*
 * A value on the rest of a line (s to the line's end): a scalar, or a flow
 * collection, which may run on over the lines that follow.  p->cur moves to
 * the first line after it.
 */
static YNode *
inline_value(YParser *p, const char *s)
{
	YLine	   *l = &p->lines[p->cur];
	YNode	   *n;

	if (*s == '{' || *s == '[')
	{
		const char *pos = s;

		n = flow(p, &pos);
		if (n == NULL)
			return NULL;
		/* the line the collection ended on, and nothing after it but a comment */
		while (p->cur < p->nlines && p->lines[p->cur].end < pos)
			p->cur++;
		if (p->cur < p->nlines && pos >= p->lines[p->cur].start)
		{
			if (!blank_or_comment(pos, p->lines[p->cur].end))
			{
				yerr(p, p->lines[p->cur].lineno, "something after a flow collection");
				return NULL;
			}
			p->cur++;
		}
		return n;
	}
	p->cur++;
	if (*s == '"' || *s == '\'')
	{
		char	   *v = quoted(p, &s, l->end, l->lineno);

		if (v == NULL)
			return NULL;
		if (!blank_or_comment(s, l->end))
		{
			yerr(p, l->lineno, "something after a quoted string");
			return NULL;
		}
		return scalar_node(v, true);
	}
	if (bad_indicator(p, *s, l->lineno))
		return NULL;
	{
		const char *e = s;

		/* up to a comment (" #") or the end, less trailing blanks */
		while (e < l->end && !(*e == '#' && e > s && (e[-1] == ' ' || e[-1] == '\t')))
			e++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (memchr(s, '\0', e - s))
		{
			yerr(p, l->lineno, "a NUL byte");
			return NULL;
		}
		return scalar_node(pnstrdup(s, e - s), false);
	}
}

/*
 * The key of a "key: value" line, or NULL when the line is none; *rest is
 * set past the colon and the blanks after it.
 */
static char *
line_key(YParser *p, YLine *l, const char **rest)
{
	const char *s = l->start;
	char	   *key;

	if (*s == '"' || *s == '\'')
	{
		key = quoted(p, &s, l->end, l->lineno);
		if (key == NULL)
			return NULL;
		while (s < l->end && *s == ' ')
			s++;
		if (s >= l->end || *s != ':')
			return NULL;
		s++;
	}
	else
	{
		const char *c = s;

		while (c < l->end && !(*c == ':' && (c + 1 == l->end || c[1] == ' ' || c[1] == '\t')))
		{
			if (*c == '#' && c > s && c[-1] == ' ')
				return NULL;
			c++;
		}
		if (c >= l->end || c == s)
			return NULL;
		{
			const char *e = c;

			while (e > s && e[-1] == ' ')
				e--;
			key = pnstrdup(s, e - s);
		}
		s = c + 1;
	}
	if (s < l->end && *s != ' ' && *s != '\t')
		return NULL;
	while (s < l->end && (*s == ' ' || *s == '\t'))
		s++;
	*rest = s;
	return key;
}

/* The value of a key whose line has none: what the next lines hold */
static YNode *
nested_value(YParser *p, int indent)
{
	YLine	   *next = p->cur < p->nlines ? &p->lines[p->cur] : NULL;

	if (next && next->indent > indent)
		return block(p, next->indent);
	/* a sequence may stand at its key's own indentation */
	if (next && next->indent == indent && is_item(next))
		return block(p, indent);
	return ynew(Y_NULL);
}

static YNode *
block_map(YParser *p, int indent)
{
	YNode	   *m = ynew(Y_MAP);

	while (p->err == NULL && p->cur < p->nlines)
	{
		YLine	   *l = &p->lines[p->cur];
		const char *rest;
		char	   *key;
		YNode	   *v;

		if (l->indent < indent || (l->indent == indent && is_item(l)))
			break;
		if (l->indent > indent)
		{
			yerr(p, l->lineno, "unexpected indentation (a value cannot go on over several lines)");
			return NULL;
		}
		key = line_key(p, l, &rest);
		if (key == NULL)
		{
			yerr(p, l->lineno, "expected \"key: value\"");
			return NULL;
		}
		if (blank_or_comment(rest, l->end))
		{
			p->cur++;
			v = nested_value(p, indent);
		}
		else
			v = inline_value(p, rest);
		if (v == NULL)
			return NULL;
		yadd(m, key, v);
	}
	return p->err ? NULL : m;
}

static YNode *
block_seq(YParser *p, int indent)
{
	YNode	   *s = ynew(Y_SEQ);

	while (p->err == NULL && p->cur < p->nlines)
	{
		YLine	   *l = &p->lines[p->cur];
		const char *rest = l->start + 1;
		YNode	   *v;

		if (l->indent != indent || !is_item(l))
		{
			if (l->indent > indent)
			{
				yerr(p, l->lineno, "unexpected indentation");
				return NULL;
			}
			break;
		}
		while (rest < l->end && *rest == ' ')
			rest++;
		if (blank_or_comment(rest, l->end))
		{
			p->cur++;
			v = (p->cur < p->nlines && p->lines[p->cur].indent > indent)
				? block(p, p->lines[p->cur].indent) : ynew(Y_NULL);
		}
		else
		{
			/* "- key: value": the item's content starts a block of its own */
			l->indent += (int) (rest - l->start);
			l->start = rest;
			v = block(p, l->indent);
		}
		if (v == NULL)
			return NULL;
		yadd(s, NULL, v);
	}
	return p->err ? NULL : s;
}

/* The block node at the current line, indented by indent */
static YNode *
block(YParser *p, int indent)
{
	YLine	   *l;
	const char *rest;
	YNode	   *n;

	if (p->err)
		return NULL;
	if (p->cur >= p->nlines || p->lines[p->cur].indent < indent)
		return ynew(Y_NULL);
	if (++p->depth > MAX_DEPTH)
	{
		yerr(p, p->lines[p->cur].lineno, "nested too deep");
		return NULL;
	}
	l = &p->lines[p->cur];
	if (is_item(l))
		n = block_seq(p, indent);
	else if (l->start[0] != '{' && l->start[0] != '[' && line_key(p, l, &rest) != NULL)
		n = block_map(p, indent);
	else if (p->err)
		n = NULL;
	else
	{
		n = inline_value(p, l->start);
		if (n && p->cur < p->nlines && p->lines[p->cur].indent >= indent &&
			!(p->lines[p->cur].indent == indent && indent == 0))
		{
			yerr(p, p->lines[p->cur].lineno, "unexpected indentation (a value cannot go on over several lines)");
			n = NULL;
		}
	}
	p->depth--;
	return n;
}

/* flow collections: JSON, and YAML's {a: b, c: [d]} */
static void
skip_space(const char **pos, const char *stop)
{
	const char *s = *pos;

	for (;;)
	{
		while (s < stop && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
			s++;
		if (s < stop && *s == '#')
		{
			while (s < stop && *s != '\n')
				s++;
			continue;
		}
		break;
	}
	*pos = s;
}

static YNode *
flow_scalar(YParser *p, const char **pos, bool key)
{
	const char *s = *pos;
	const char *e;

	if (*s == '"' || *s == '\'')
	{
		char	   *v;

		p->at = s;
		v = quoted(p, &s, p->stop, 0);	/* (it stops at the line's end) */

		*pos = s;
		return v ? scalar_node(v, true) : NULL;
	}
	p->at = s;
	if (bad_indicator(p, *s, 0))
		return NULL;
	e = s;
	while (e < p->stop && *e != ',' && *e != ']' && *e != '}' && *e != '\n' && *e != '\r' && *e != '{' &&
		   *e != '[' && !(*e == ':' && (key || e + 1 == p->stop || strchr(" \t\n,]}", e[1]))) &&
		   !(*e == '#' && e > s && e[-1] == ' '))
		e++;
	*pos = e;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (memchr(s, '\0', e - s))
	{
		yerr_at(p, s, "a NUL byte");
		return NULL;
	}
	return scalar_node(pnstrdup(s, e - s), false);
}

static YNode *
flow_collection(YParser *p, const char **pos)
{
	bool		map = **pos == '{';
	char		close = map ? '}' : ']';
	YNode	   *c = ynew(map ? Y_MAP : Y_SEQ);
	const char *s = *pos + 1;

	for (;;)
	{
		char	   *key = NULL;
		YNode	   *v;

		skip_space(&s, p->stop);
		if (s >= p->stop)
		{
			yerr_at(p, *pos, "a flow collection that starts here does not end");
			return NULL;
		}
		if (*s == close)
			break;
		if (map)
		{
			YNode	   *k = flow_scalar(p, &s, true);

			if (k == NULL)
				return NULL;
			skip_space(&s, p->stop);
			if (s >= p->stop || *s != ':')
			{
				yerr_at(p, s, "expected \":\" in a flow mapping");
				return NULL;
			}
			key = k->kind == Y_SCALAR ? k->str : pstrdup("");
			s++;
		}
		v = flow(p, &s);
		if (v == NULL)
			return NULL;
		yadd(c, key, v);
		skip_space(&s, p->stop);
		if (s < p->stop && *s == ',')
		{
			s++;
			continue;
		}
		if (s < p->stop && *s == close)
			break;
		if (s >= p->stop)
			yerr_at(p, *pos, "a flow collection that starts here does not end");
		else
			yerr_at(p, s, psprintf("expected \",\" or \"%c\"", close));
		return NULL;
	}
	*pos = s + 1;
	return c;
}

static YNode *
flow(YParser *p, const char **pos)
{
	YNode	   *n;

	skip_space(pos, p->stop);
	if (*pos >= p->stop)
	{
		yerr_at(p, *pos, "the text ends inside a flow collection");
		return NULL;
	}
	if (**pos != '{' && **pos != '[')
		return flow_scalar(p, pos, false);
	if (++p->depth > MAX_DEPTH)
	{
		yerr_at(p, *pos, "nested too deep");
		return NULL;
	}
	n = flow_collection(p, pos);
	p->depth--;
	return n;
}

/*
 * YamlParse
 *		The document in text, or NULL with *error set.  Never throws on bad
 *		input (only on out of memory).
 */
YNode *
YamlParse(const char *text, size_t len, char **error)
{
	YParser		p = {0};
	YNode	   *root;

	p.text = text;
	p.stop = text + len;
	*error = NULL;
	if (memchr(text, '\0', len) != NULL)
	{
		*error = pstrdup("the file holds a NUL byte");
		return NULL;
	}
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
	{
		/* a UTF-8 byte order mark, as go-yaml skips it */
		p.text = text + 3;
	}
	if (!split_lines(&p))
	{
		*error = p.err;
		return NULL;
	}
	root = block(&p, 0);
	if (root && p.err == NULL && p.cur < p.nlines)
		yerr(&p, p.lines[p.cur].lineno, "unexpected indentation or content after the document");
	if (p.err)
	{
		*error = p.err;
		return NULL;
	}
	return root;
}

/* Zero every string of the tree: it held tokens and keys */
void
YamlWipe(YNode *n)
{
	if (n == NULL)
		return;
	if (n->str)
		explicit_bzero(n->str, strlen(n->str));
	for (int i = 0; i < n->n; i++)
	{
		if (n->keys[i])
			explicit_bzero(n->keys[i], strlen(n->keys[i]));
		YamlWipe(n->vals[i]);
	}
}

YNode *
YamlGet(YNode *map, const char *key)
{
	if (map == NULL || map->kind != Y_MAP)
		return NULL;
	/* the last of equal keys, as client-go's decoder keeps */
	for (int i = map->n - 1; i >= 0; i--)
		if (strcmp(map->keys[i], key) == 0)
			return map->vals[i];
	return NULL;
}

/* ------------------------------------------------------------------------
 * The kubeconfig
 * ------------------------------------------------------------------------
 */

/*
 * A bearer token from its file (one line; tokens rotate, so it is read at
 * each connection), or NULL with *error set.
 */
char *
KubeReadToken(const char *path, char **error)
{
	FILE	   *f;
	StringInfoData buf;
	char		chunk[1024];
	size_t		n;
	struct stat st;

	/* a regular file: a FIFO would block the worker */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
	{
		*error = psprintf("token file \"%s\" is no regular file", path);
		return NULL;
	}
	f = AllocateFile(path, "r");
	if (f == NULL)
	{
		*error = psprintf("could not open token file \"%s\": %m", path);
		return NULL;
	}
	/* room for the largest token taken, so that no copy is left behind by a growth */
	initStringInfo(&buf);
	enlargeStringInfo(&buf, 64 * 1024 + sizeof(chunk));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && buf.len < 64 * 1024)
		appendBinaryStringInfo(&buf, chunk, n);
	explicit_bzero(chunk, sizeof(chunk));
	FreeFile(f);
	while (buf.len > 0 && isspace((unsigned char) buf.data[buf.len - 1]))
		buf.data[--buf.len] = '\0';
	if (buf.len == 0 || strchr(buf.data, '\n') || strchr(buf.data, '\r'))
	{
		*error = psprintf("token file \"%s\" %s", path,
						  buf.len == 0 ? "is empty" : "holds more than one line");
		return NULL;
	}
	return buf.data;
}


/* a string field, NULL when absent or null; *bad when present but no string */
static const char *
field(YNode *map, const char *key, bool *bad)
{
	YNode	   *v = YamlGet(map, key);

	if (v == NULL || v->kind == Y_NULL)
		return NULL;
	if (v->kind != Y_SCALAR)
	{
		*bad = true;
		return NULL;
	}
	return v->str[0] ? v->str : NULL;
}

/* The entry named name of a list (clusters, users, contexts): its inner object */
static YNode *
named(YNode *root, const char *list, const char *inner, const char *name, char **error)
{
	YNode	   *l = YamlGet(root, list);

	if (l != NULL && l->kind != Y_SEQ && l->kind != Y_NULL)
	{
		*error = psprintf("%s is not a list", list);
		return NULL;
	}
	for (int i = 0; l != NULL && l->kind == Y_SEQ && i < l->n; i++)
	{
		bool		bad = false;
		const char *n = field(l->vals[i], "name", &bad);

		if (n && strcmp(n, name) == 0)
		{
			YNode	   *v = YamlGet(l->vals[i], inner);

			if (v == NULL || v->kind == Y_NULL)
				return ynew(Y_MAP); /* all defaults */
			if (v->kind != Y_MAP)
			{
				*error = psprintf("%s \"%s\": %s is not an object", list, name, inner);
				return NULL;
			}
			return v;
		}
	}
	*error = psprintf("%s \"%s\" is not in %s", inner, name, list);
	return NULL;
}

/* a file name relative to the kubeconfig's folder */
static char *
resolve(const char *dir, const char *path)
{
	if (path[0] == '/')
		return pstrdup(path);
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	return psprintf("%s/%s", dir, path);
}

static bool
decode(const char *b64, char **out, size_t *outlen, const char *what, char **error)
{
	int			len = (int) strlen(b64);
	int			cap = pg_b64_dec_len(len);
	char	   *buf = palloc(cap + 1);
	int			n = pg_b64_decode(b64, len, buf, cap);

	if (n <= 0)
	{
		pfree(buf);
		*error = psprintf("%s is not base64", what);
		return false;
	}
	buf[n] = '\0';
	*out = buf;
	*outlen = (size_t) n;
	return true;
}

/* a value that sets something: not absent, null, "", [] or {} (client-go: unset) */
static bool
nonempty(YNode *v)
{
	return v != NULL && (v->kind == Y_SCALAR ? v->str[0] != '\0' : v->kind != Y_NULL && v->n > 0);
}

/* refusals: what kubectl could do and the scheduler does not */
static bool
refuse_user(YNode *user, const char *name, char **error)
{
	YNode	   *exec = YamlGet(user, "exec");
	bool		bad = false;

	if (nonempty(exec))
	{
		const char *cmd = field(exec, "command", &bad);

		*error = psprintf("user \"%s\" uses an exec credential plugin%s%s%s, which the scheduler does not run: "
						  "give it a token, a tokenFile or a client certificate instead",
						  name, cmd ? " (command \"" : "", cmd ? cmd : "", cmd ? "\")" : "");
		return true;
	}
	if (nonempty(YamlGet(user, "auth-provider")))
	{
		const char *prov = field(YamlGet(user, "auth-provider"), "name", &bad);

		*error = psprintf("user \"%s\" uses an auth-provider%s%s%s, which the scheduler does not support: "
						  "give it a token, a tokenFile or a client certificate instead",
						  name, prov ? " (\"" : "", prov ? prov : "", prov ? "\")" : "");
		return true;
	}
	if (field(user, "username", &bad) || field(user, "password", &bad))
	{
		*error = psprintf("user \"%s\" uses basic authentication (username and password), which the scheduler does not support", name);
		return true;
	}
	if (field(user, "as", &bad) || field(user, "as-uid", &bad) || nonempty(YamlGet(user, "as-groups")) ||
		nonempty(YamlGet(user, "as-user-extra")))
	{
		*error = psprintf("user \"%s\" impersonates another (as, as-groups, as-uid, as-user-extra), which the scheduler does not support", name);
		return true;
	}
	return false;
}

/* YAML 1.1's booleans, as client-go's decoder (yaml.v2) reads them */
static bool
yaml_bool(const char *v, bool which)
{
	static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"};
	static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"};
	const char *const *list = which ? yes : no;

	for (int i = 0; i < (int) lengthof(yes); i++)
		if (strcmp(v, list[i]) == 0)
			return true;
	return false;
}

static bool
load_cluster(KubeConfig *cfg, YNode *cluster, const char *name, const char *dir, char **error)
{
	bool		bad = false;
	const char *server = field(cluster, "server", &bad);
	const char *ca = field(cluster, "certificate-authority", &bad);
	const char *ca_data = field(cluster, "certificate-authority-data", &bad);
	const char *insecure = field(cluster, "insecure-skip-tls-verify", &bad);

	if (bad)
	{
		*error = psprintf("cluster \"%s\": server, certificate-authority, certificate-authority-data and insecure-skip-tls-verify must be strings", name);
		return false;
	}
	if (field(cluster, "tls-server-name", &bad) || field(cluster, "proxy-url", &bad))
	{
		*error = psprintf("cluster \"%s\" sets tls-server-name or proxy-url, which the scheduler does not support", name);
		return false;
	}
	if (server == NULL)
	{
		*error = psprintf("cluster \"%s\" has no server", name);
		return false;
	}
	if (strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0)
	{
		*error = psprintf("cluster \"%s\": server \"%s\" is not an http:// or https:// URL", name, server);
		return false;
	}
	if (ca && ca_data)
	{
		*error = psprintf("cluster \"%s\" sets both certificate-authority and certificate-authority-data", name);
		return false;
	}
	cfg->insecure = insecure && yaml_bool(insecure, true);
	if (insecure && !cfg->insecure && !yaml_bool(insecure, false))
	{
		*error = psprintf("cluster \"%s\": insecure-skip-tls-verify is \"%s\", not true or false", name, insecure);
		return false;
	}
	if (cfg->insecure && (ca || ca_data))
	{
		*error = psprintf("cluster \"%s\" sets a certificate authority and insecure-skip-tls-verify: client-go refuses both", name);
		return false;
	}
	cfg->url = pstrdup(server);
	while (strlen(cfg->url) > 0 && cfg->url[strlen(cfg->url) - 1] == '/')
		cfg->url[strlen(cfg->url) - 1] = '\0';
	if (ca)
		cfg->ca_file = resolve(dir, ca);
	if (ca_data && !decode(ca_data, &cfg->ca_data, &cfg->ca_data_len,
						   psprintf("cluster \"%s\": certificate-authority-data", name), error))
		return false;
	return true;
}

static bool
load_user(KubeConfig *cfg, YNode *user, const char *name, const char *dir, char **error)
{
	bool		bad = false;
	const char *token = field(user, "token", &bad);
	const char *token_file = field(user, "tokenFile", &bad);
	const char *cert = field(user, "client-certificate", &bad);
	const char *cert_data = field(user, "client-certificate-data", &bad);
	const char *key = field(user, "client-key", &bad);
	const char *key_data = field(user, "client-key-data", &bad);

	if (bad)
	{
		*error = psprintf("user \"%s\": token, tokenFile and the client certificate and key fields must be strings", name);
		return false;
	}
	if (refuse_user(user, name, error))
		return false;
	if (cert && cert_data)
	{
		*error = psprintf("user \"%s\" sets both client-certificate and client-certificate-data", name);
		return false;
	}
	if (key && key_data)
	{
		*error = psprintf("user \"%s\" sets both client-key and client-key-data", name);
		return false;
	}
	if ((cert || cert_data) != (key || key_data))
	{
		*error = psprintf("user \"%s\" has a client %s without its %s", name,
						  (cert || cert_data) ? "certificate" : "key", (cert || cert_data) ? "key" : "certificate");
		return false;
	}
	if (cert)
		cfg->cert_file = resolve(dir, cert);
	if (key)
		cfg->key_file = resolve(dir, key);
	if (cert_data && !decode(cert_data, &cfg->cert_data, &cfg->cert_data_len,
							 psprintf("user \"%s\": client-certificate-data", name), error))
		return false;
	if (key_data && !decode(key_data, &cfg->key_data, &cfg->key_data_len,
							psprintf("user \"%s\": client-key-data", name), error))
		return false;
	/* client-go reads tokenFile when set, over token */
	if (token_file)
	{
		cfg->token_file = resolve(dir, token_file);
		cfg->token = KubeReadToken(cfg->token_file, error);
		if (cfg->token == NULL && token == NULL)
			return false;
		if (cfg->token == NULL)
		{
			/* client-go falls back on the inline token while the file cannot be read */
			pfree(cfg->token_file);
			cfg->token_file = NULL;
			*error = NULL;
		}
	}
	if (cfg->token == NULL && token)
	{
		if (strpbrk(token, "\r\n"))
		{
			*error = psprintf("user \"%s\": token holds a line break", name);
			return false;
		}
		cfg->token = pstrdup(token);
	}
	return true;
}

/* the file, whole, or NULL with *error set; never throws but on out of memory */
static char *
read_file(const char *path, size_t *len, char **error)
{
	int			fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char	   *buf;
	size_t		got = 0;

	if (fd < 0)
	{
		*error = psprintf("could not open \"%s\": %m", path);
		return NULL;
	}
	if (fstat(fd, &st) != 0)
	{
		*error = psprintf("could not stat \"%s\": %m", path);
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > MAX_KUBECONFIG)
	{
		*error = psprintf("\"%s\" is %s", path, S_ISREG(st.st_mode) ? "larger than 4 MB" : "no regular file");
		close(fd);
		return NULL;
	}
	buf = palloc(st.st_size + 1);
	while (got < (size_t) st.st_size)
	{
		ssize_t		n = read(fd, buf + got, st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

/*
 * KubeconfigResolve
 *		Fill cfg from a parsed kubeconfig: the context (NULL: the
 *		current-context), its cluster and its user.  dir: the kubeconfig's
 *		folder, for relative file names.  False with *error set.
 */
bool
KubeconfigResolve(KubeConfig *cfg, YNode *root, const char *context, const char *dir, char **error)
{
	bool		bad = false;
	YNode	   *ctx;
	const char *cluster_name;
	const char *user_name;
	YNode	   *cluster;
	YNode	   *user = NULL;

	if (root == NULL || root->kind != Y_MAP)
	{
		*error = pstrdup("it is not a mapping (apiVersion: v1, kind: Config, clusters, users, contexts)");
		return false;
	}
	if (context == NULL || context[0] == '\0')
		context = field(root, "current-context", &bad);
	if (context == NULL)
	{
		*error = pstrdup(bad ? "current-context is not a string"
						 : "it has no current-context, and scheduler.kube_context is not set");
		return false;
	}
	cfg->context = pstrdup(context);
	if ((ctx = named(root, "contexts", "context", context, error)) == NULL)
		return false;
	cluster_name = field(ctx, "cluster", &bad);
	user_name = field(ctx, "user", &bad);
	if (bad || cluster_name == NULL)
	{
		*error = psprintf("context \"%s\" names no cluster", context);
		return false;
	}
	cfg->cluster = pstrdup(cluster_name);
	if ((cluster = named(root, "clusters", "cluster", cluster_name, error)) == NULL)
		return false;
	if (user_name && (user = named(root, "users", "user", user_name, error)) == NULL)
		return false;
	if (user_name)
		cfg->user = pstrdup(user_name);
	if (!load_cluster(cfg, cluster, cluster_name, dir, error))
		return false;
	return user == NULL || load_user(cfg, user, user_name, dir, error);
}

/*
 * KubeconfigLoad
 *		Read, parse and resolve the kubeconfig at path.  False with *error
 *		set, the file named in it.
 */
bool
KubeconfigLoad(KubeConfig *cfg, const char *path, const char *context, char **error)
{
	size_t		len;
	char	   *text = read_file(path, &len, error);
	YNode	   *root;
	char	   *dir;
	char	   *slash;
	bool		ok;

	if (text == NULL)
		goto fail;
	root = YamlParse(text, len, error);
	if (root == NULL)
		goto fail;
	dir = pstrdup(path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		dir = pstrdup(".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	cfg->kubeconfig = pstrdup(path);
	ok = KubeconfigResolve(cfg, root, context, dir, error);
	/* the inline secrets are in cfg now: the parse's copies go */
	YamlWipe(root);
	explicit_bzero(text, len);
	if (ok)
		return true;
	text = NULL;

fail:
	if (text)
		explicit_bzero(text, len);
	*error = psprintf("kubeconfig \"%s\": %s", path, *error);
	return false;
}
