/*
 * kube_client.c
 *	  The HTTP client the background workers (watch.c, bind.c) talk to the
 *	  API server with.
 *
 * Connection settings are GUCs: scheduler.kube_api_url and the token, CA,
 * client certificate and key files; or scheduler.kubeconfig, a kubeconfig
 * file (kubeconfig.c), and scheduler.kube_context.  With none of them set and the
 * in-cluster service-account files present, those are used, as client-go's
 * rest.InClusterConfig does: https://$KUBERNETES_SERVICE_HOST:
 * $KUBERNETES_SERVICE_PORT, the token and ca.crt of
 * /var/run/secrets/kubernetes.io/serviceaccount (or of
 * $SCHEDULER_SERVICEACCOUNT_DIR, in the postmaster's environment: tests).  The file GUCs are superuser-only; the token is
 * read by the worker at each connection (tokens rotate), kept in its memory
 * only and never logged.
 *
 * Requests run on a curl multi whose sockets are waited on in one
 * WaitEventSet with the process latch and postmaster death, so a signal
 * (SIGTERM, SIGHUP) or a wake-up acts at once, whatever curl is doing.
 */
#include "postgres.h"

#include <sys/stat.h>
#ifdef __linux__
#include <sys/epoll.h>
#endif

#include "common/jsonapi.h"
#include "common/pg_prng.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/jsonfuncs.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "jsonutil.h"
#include "kube_client.h"
#include "kubeconfig.h"

#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"
#define SA_DIR_ENV "SCHEDULER_SERVICEACCOUNT_DIR"	/* another one, for tests */
#define MAX_RESPONSE (256 * 1024 * 1024)	/* one response or watch line */

char	   *scheduler_kube_api_url = NULL;
char	   *scheduler_kube_token_file = NULL;
char	   *scheduler_kube_ca_file = NULL;
char	   *scheduler_kube_client_cert_file = NULL;
char	   *scheduler_kube_client_key_file = NULL;
char	   *scheduler_kubeconfig = NULL;
char	   *scheduler_kube_context = NULL;

static bool curl_ready = false;

static void
curl_init_once(void)
{
	if (curl_ready)
		return;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
		elog(ERROR, "curl_global_init failed");
	curl_ready = true;
}

void
KubeClientInit(void)
{
	DefineCustomStringVariable("scheduler.kube_api_url",
							   "The API server to list and watch, and to send bindings, conditions and events to; empty: none, or the in-cluster one.",
							   NULL,
							   &scheduler_kube_api_url,
							   "",
							   PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("scheduler.kube_token_file",
							   "File holding the bearer token for the API server (read at each connection).",
							   NULL,
							   &scheduler_kube_token_file,
							   "",
							   PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomStringVariable("scheduler.kube_ca_file",
							   "PEM file of the CA that signs the API server's certificate; empty: the system's.",
							   NULL,
							   &scheduler_kube_ca_file,
							   "",
							   PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomStringVariable("scheduler.kube_client_cert_file",
							   "PEM client certificate for the API server.",
							   NULL,
							   &scheduler_kube_client_cert_file,
							   "",
							   PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomStringVariable("scheduler.kube_client_key_file",
							   "PEM private key of the client certificate.",
							   NULL,
							   &scheduler_kube_client_key_file,
							   "",
							   PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomStringVariable("scheduler.kubeconfig",
							   "A kubeconfig file giving the API server and the credentials (instead of scheduler.kube_api_url and the file settings), read at each connection.",
							   NULL,
							   &scheduler_kubeconfig,
							   "",
							   PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomStringVariable("scheduler.kube_context",
							   "The context of scheduler.kubeconfig to use; empty: its current-context.",
							   NULL,
							   &scheduler_kube_context,
							   "",
							   PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
}

static bool
set(const char *s)
{
	return s != NULL && s[0] != '\0';
}

static bool
no_setting(void)
{
	return !set(scheduler_kube_api_url) && !set(scheduler_kube_token_file) &&
		!set(scheduler_kube_ca_file) && !set(scheduler_kube_client_cert_file) &&
		!set(scheduler_kube_client_key_file) && !set(scheduler_kubeconfig);
}

/* the first of the file-less settings that is set, or NULL */
static const char *
a_setting(void)
{
	if (set(scheduler_kube_api_url))
		return "scheduler.kube_api_url";
	if (set(scheduler_kube_token_file))
		return "scheduler.kube_token_file";
	if (set(scheduler_kube_ca_file))
		return "scheduler.kube_ca_file";
	if (set(scheduler_kube_client_cert_file))
		return "scheduler.kube_client_cert_file";
	if (set(scheduler_kube_client_key_file))
		return "scheduler.kube_client_key_file";
	return NULL;
}

/* where the service account's token and CA are mounted */
static const char *
sa_dir(void)
{
	const char *d = getenv(SA_DIR_ENV);

	return set(d) ? d : SA_DIR;
}

static bool
in_cluster(void)
{
	struct stat st;

	return no_setting() && set(getenv("KUBERNETES_SERVICE_HOST")) &&
		set(getenv("KUBERNETES_SERVICE_PORT")) &&
		stat(psprintf("%s/token", sa_dir()), &st) == 0;
}

/* Is there an API server to send bindings to?  (schedule_pending asks.) */
bool
KubeApiConfigured(void)
{
	return set(scheduler_kube_api_url) || set(scheduler_kubeconfig) || in_cluster();
}

/*
 * Hand the kubeconfig's inline data to curl as blobs (curl copies each);
 * false when curl refuses one.
 */
static bool
set_blobs(CURL *e, const KubeConfig *cfg)
{
	bool		ok = true;

	if (cfg->ca_data)
	{
		struct curl_blob b = {cfg->ca_data, cfg->ca_data_len, CURL_BLOB_COPY};

		ok &= curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &b) == CURLE_OK;
	}
	if (cfg->cert_data)
	{
		struct curl_blob b = {cfg->cert_data, cfg->cert_data_len, CURL_BLOB_COPY};

		ok &= curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &b) == CURLE_OK;
		curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
	}
	if (cfg->key_data)
	{
		struct curl_blob b = {cfg->key_data, cfg->key_data_len, CURL_BLOB_COPY};

		ok &= curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &b) == CURLE_OK;
		curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
	}
	return ok;
}

/*
 * Inline certificate data needs a libcurl that takes it as blobs (7.77 with
 * OpenSSL; not every TLS backend): refused by name, never dropped, which
 * would check the server against the system's CAs instead.
 */
static bool
blobs_taken(const KubeConfig *cfg, char **error)
{
	CURL	   *e;
	bool		ok;

	if (!cfg->ca_data && !cfg->cert_data && !cfg->key_data)
		return true;
	curl_init_once();
	if ((e = curl_easy_init()) == NULL)
		elog(ERROR, "curl_easy_init failed");
	ok = set_blobs(e, cfg);
	curl_easy_cleanup(e);
	if (!ok)
		*error = psprintf("kubeconfig \"%s\": this libcurl (%s) cannot take inline certificate data:"
						  " give certificate-authority, client-certificate and client-key as files",
						  cfg->kubeconfig, curl_version());
	return ok;
}

/*
 * Resolve the settings.  Returns false with *error set when there is no API
 * server to talk to, or a file cannot be read.
 */
bool
KubeConfigLoad(KubeConfig *cfg, char **error)
{
	memset(cfg, 0, sizeof(*cfg));
	*error = NULL;
	if (set(scheduler_kube_context) && !set(scheduler_kubeconfig))
	{
		*error = pstrdup("scheduler.kube_context is set, but scheduler.kubeconfig is not: a context names one of a kubeconfig's");
		return false;
	}
	if (in_cluster())
	{
		const char *host = getenv("KUBERNETES_SERVICE_HOST");

		cfg->in_cluster = true;
		cfg->url = psprintf(strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s",
							host, getenv("KUBERNETES_SERVICE_PORT"));
		cfg->ca_file = psprintf("%s/ca.crt", sa_dir());
		cfg->token = KubeReadToken(psprintf("%s/token", sa_dir()), error);
		return cfg->token != NULL;
	}
	if (set(scheduler_kubeconfig))
	{
		if (a_setting() != NULL)
		{
			*error = psprintf("scheduler.kubeconfig and %s are both set: set one or the other", a_setting());
			return false;
		}
		if (!KubeconfigLoad(cfg, scheduler_kubeconfig, scheduler_kube_context, error) ||
			!blobs_taken(cfg, error))
		{
			KubeConfigFree(cfg);
			return false;
		}
		return true;
	}
	if (!set(scheduler_kube_api_url))
	{
		*error = pstrdup("scheduler.kube_api_url is not set");
		return false;
	}
	cfg->url = pstrdup(scheduler_kube_api_url);
	while (strlen(cfg->url) > 0 && cfg->url[strlen(cfg->url) - 1] == '/')
		cfg->url[strlen(cfg->url) - 1] = '\0';
	if (set(scheduler_kube_ca_file))
		cfg->ca_file = pstrdup(scheduler_kube_ca_file);
	if (set(scheduler_kube_client_cert_file))
		cfg->cert_file = pstrdup(scheduler_kube_client_cert_file);
	if (set(scheduler_kube_client_key_file))
		cfg->key_file = pstrdup(scheduler_kube_client_key_file);
	if (set(scheduler_kube_token_file))
	{
		cfg->token = KubeReadToken(scheduler_kube_token_file, error);
		if (cfg->token == NULL)
			return false;
	}
	return true;
}

void
KubeConfigFree(KubeConfig *cfg)
{
	if (cfg->token)
	{
		explicit_bzero(cfg->token, strlen(cfg->token));
		pfree(cfg->token);
	}
	if (cfg->url)
		pfree(cfg->url);
	if (cfg->ca_file)
		pfree(cfg->ca_file);
	if (cfg->cert_file)
		pfree(cfg->cert_file);
	if (cfg->key_file)
		pfree(cfg->key_file);
	if (cfg->ca_data)
		pfree(cfg->ca_data);
	if (cfg->cert_data)
		pfree(cfg->cert_data);
	if (cfg->key_data)
	{
		explicit_bzero(cfg->key_data, cfg->key_data_len);
		pfree(cfg->key_data);
	}
	if (cfg->kubeconfig)
		pfree(cfg->kubeconfig);
	if (cfg->context)
		pfree(cfg->context);
	if (cfg->cluster)
		pfree(cfg->cluster);
	if (cfg->user)
		pfree(cfg->user);
	if (cfg->token_file)
		pfree(cfg->token_file);
	memset(cfg, 0, sizeof(*cfg));
}

/*
 * Take n more bytes of req's response: a body is collected whole; a stream
 * (on_line set) is cut into lines, each handed on as it completes.  Returns
 * how many bytes were taken: less than n when the response is too large or
 * the owner asked to stop.  It must not throw (curl calls it).
 */
size_t
KubeFeed(KubeRequest *req, const char *data, size_t n, bool stream)
{
	if (req->failed || (size_t) req->response.len + n > MAX_RESPONSE)
		return 0;
	appendBinaryStringInfo(&req->response, data, n);
	if (stream)
	{
		char	   *start = req->response.data;
		char	   *nl;
		size_t		used;

		while ((nl = memchr(start, '\n', req->response.len - (start - req->response.data))) != NULL)
		{
			*nl = '\0';
			if (nl > start)
				req->on_line(req, start, nl - start);
			start = nl + 1;
			if (req->failed)
				return 0;
		}
		used = start - req->response.data;
		if (used > 0)
		{
			memmove(req->response.data, start, req->response.len - used);
			req->response.len -= used;
			req->response.data[req->response.len] = '\0';
		}
	}
	return n;
}

/*
 * curl's write callback.  A refusal's body (a Status) is no stream of
 * events, even on a streamed request: it is kept whole.
 */
static size_t
write_cb(char *data, size_t size, size_t nmemb, void *userp)
{
	KubeRequest *req = (KubeRequest *) userp;
	bool		stream = false;

	if (req->on_line)
	{
		long		code = 0;

		curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &code);
		stream = code == 200;
	}
	return KubeFeed(req, data, size * nmemb, stream);
}

KubeRequest *
KubeRequestNew(KubeConfig *cfg, const char *method, const char *path,
			   const char *content_type, const char *body, long timeout_ms)
{
	KubeRequest *req = palloc0(sizeof(KubeRequest));
	CURL	   *e;
	char	   *auth;

	curl_init_once();
	e = curl_easy_init();
	if (e == NULL)
		elog(ERROR, "curl_easy_init failed");
	req->easy = e;
	req->method = pstrdup(method);
	req->path = pstrdup(path);
	req->body = body ? pstrdup(body) : NULL;
	initStringInfo(&req->response);

	req->headers = curl_slist_append(req->headers, "Accept: application/json");
	if (content_type)
		req->headers = curl_slist_append(req->headers, psprintf("Content-Type: %s", content_type));
	if (cfg->token)
	{
		auth = psprintf("Authorization: Bearer %s", cfg->token);
		req->headers = curl_slist_append(req->headers, auth);
		explicit_bzero(auth, strlen(auth));
		pfree(auth);
	}
	{
		char	   *url = psprintf("%s%s", cfg->url, path);

		curl_easy_setopt(e, CURLOPT_URL, url);	/* curl keeps a copy */
		pfree(url);
	}
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, req->headers);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "scheduler/" "0.1 (PostgreSQL extension)");
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, req->curl_error);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, req);
	curl_easy_setopt(e, CURLOPT_PRIVATE, req);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	if (cfg->ca_file)
		curl_easy_setopt(e, CURLOPT_CAINFO, cfg->ca_file);
	if (cfg->cert_file)
		curl_easy_setopt(e, CURLOPT_SSLCERT, cfg->cert_file);
	if (cfg->key_file)
		curl_easy_setopt(e, CURLOPT_SSLKEY, cfg->key_file);
	/* inline data (blobs_taken checked, at load, that this curl takes it) */
	(void) set_blobs(e, cfg);
	if (cfg->insecure)
	{
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (strcmp(method, "GET") != 0)
	{
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->body ? req->body : "");
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long) (req->body ? strlen(req->body) : 0));
	}
	return req;
}

void
KubeRequestFree(KubeRequest *req)
{
	if (req->easy)
		curl_easy_cleanup(req->easy);
	if (req->headers)
		curl_slist_free_all(req->headers);	/* holds the token: curl's memory */
	pfree(req->method);
	pfree(req->path);
	if (req->body)
		pfree(req->body);
	pfree(req->response.data);
	pfree(req);
}

long
KubeRequestStatus(KubeRequest *req)
{
	long		code = 0;

	curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &code);
	return code;
}

/*
 * The Retry-After of a 429 or a 5xx, in ms (at most 10 minutes), or -1 when
 * it has none (or says 0).  Seconds or an HTTP date, as curl reads it.
 */
long
KubeRetryAfterMs(KubeRequest *req)
{
	long		code = KubeRequestStatus(req);
	curl_off_t	secs = 0;

	if (code != 429 && code < 500)
		return -1;
	if (curl_easy_getinfo(req->easy, CURLINFO_RETRY_AFTER, &secs) != CURLE_OK || secs <= 0)
		return -1;
	return (long) Min(secs, (curl_off_t) 600) * 1000L;
}

/*
 * One segment of a request path (a namespace, a name), percent-encoded with
 * libcurl's escaping: nothing in it can end the segment, start a query or a
 * fragment, or climb the path.  NULL for what is no segment at all ("",
 * ".", ".."), which no request may be built with.  In the current context.
 */
char *
KubePathSegment(const char *s)
{
	char	   *esc;
	char	   *out;

	if (s == NULL || s[0] == '\0' || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return NULL;
	curl_init_once();
	esc = curl_easy_escape(NULL, s, (int) strlen(s));
	if (esc == NULL)
		return NULL;
	out = pstrdup(esc);
	curl_free(esc);
	return out;
}

/*
 * The parse: what jsonb_in does (jsonb.c), in one pass, where a text that is
 * not JSON returns an error instead of throwing.
 */
typedef struct JsonbBuild
{
	JsonbParseState *state;
	JsonbValue *res;
} JsonbBuild;

static void
build_push(JsonbBuild *b, JsonbIteratorToken tok, JsonbValue *v)
{
	b->res = pushJsonbValue(&b->state, tok, v);
}

static void
build_string(JsonbValue *v, char *s)
{
	size_t		len = strlen(s);

	if (len > JENTRY_OFFLENMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("string too long to represent as jsonb string"),
				 errdetail("Due to an implementation restriction, jsonb strings cannot exceed %d bytes.",
						   JENTRY_OFFLENMASK)));
	v->type = jbvString;
	v->val.string.len = (int) len;
	v->val.string.val = s;
}

static void
build_object_start(void *arg)
{
	build_push(arg, WJB_BEGIN_OBJECT, NULL);
}

static void
build_object_end(void *arg)
{
	build_push(arg, WJB_END_OBJECT, NULL);
}

static void
build_array_start(void *arg)
{
	build_push(arg, WJB_BEGIN_ARRAY, NULL);
}

static void
build_array_end(void *arg)
{
	build_push(arg, WJB_END_ARRAY, NULL);
}

static void
build_field(void *arg, char *fname, bool isnull pg_attribute_unused())
{
	JsonbValue	v;

	build_string(&v, fname);
	build_push(arg, WJB_KEY, &v);
}

static void
build_scalar(void *arg, char *token, JsonTokenType type)
{
	JsonbBuild *b = (JsonbBuild *) arg;
	JsonbValue	v;

	switch (type)
	{
		case JSON_TOKEN_STRING:
			build_string(&v, token);
			break;
		case JSON_TOKEN_NUMBER:
			v.type = jbvNumeric;
			v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(token),
																ObjectIdGetDatum(InvalidOid),
																Int32GetDatum(-1)));
			break;
		case JSON_TOKEN_TRUE:
		case JSON_TOKEN_FALSE:
			v.type = jbvBool;
			v.val.boolean = type == JSON_TOKEN_TRUE;
			break;
		default:
			v.type = jbvNull;
			break;
	}
	if (b->state == NULL)
	{
		/* a scalar alone: jsonb's raw scalar, an array of one */
		JsonbValue	va;

		va.type = jbvArray;
		va.val.array.rawScalar = true;
		va.val.array.nElems = 1;
		build_push(b, WJB_BEGIN_ARRAY, &va);
		build_push(b, WJB_ELEM, &v);
		build_push(b, WJB_END_ARRAY, NULL);
	}
	else
		build_push(b, b->state->contVal.type == jbvArray ? WJB_ELEM : WJB_VALUE, &v);
}

/*
 * Parse text as JSON into jsonb, or NULL when it is not JSON.  A \u0000
 * escape, which JSON allows and the API server keeps in strings (an
 * annotation, an env value) but PostgreSQL's text cannot hold, becomes
 * U+FFFD, so that such an object is mirrored rather than refused forever.
 * The caller runs in a transaction: a value jsonb cannot hold (a nesting too
 * deep, a number out of numeric's range, a string over 256 MB, a lone
 * surrogate escape) throws, with a program-limit or data exception error,
 * as jsonb_in does.
 */
Jsonb *
KubeParseJson(const char *text, size_t len)
{
	JsonLexContext *lex;
	JsonParseErrorType result;
	JsonbBuild	b = {0};
	JsonSemAction sem = {
		.semstate = &b,
		.object_start = build_object_start,
		.object_end = build_object_end,
		.array_start = build_array_start,
		.array_end = build_array_end,
		.object_field_start = build_field,
		.scalar = build_scalar,
	};

	if (memchr(text, '\0', len) != NULL)
		return NULL;
	if (memmem(text, len, "\\u0000", 6) != NULL)
	{
		char	   *copy = pnstrdup(text, len);

		for (size_t i = 0; i + 1 < len; i++)
		{
			if (copy[i] != '\\')
				continue;
			if (copy[i + 1] == 'u' && i + 5 < len && strncmp(copy + i + 2, "0000", 4) == 0)
				memcpy(copy + i + 2, "fffd", 4);
			i++;				/* past the escaped character */
		}
		text = copy;
	}
	lex = makeJsonLexContextCstringLen((char *) text, len, GetDatabaseEncoding(), true);
	result = pg_parse_json(lex, &sem);
	/* an escape that is JSON but no character here: a value, as jsonb_in says */
	if (result == JSON_UNICODE_CODE_POINT_ZERO || result == JSON_UNICODE_HIGH_ESCAPE ||
		result == JSON_UNICODE_HIGH_SURROGATE || result == JSON_UNICODE_LOW_SURROGATE)
		json_ereport_error(result, lex);
	if (result != JSON_SUCCESS || b.res == NULL)
		return NULL;
	return JsonbValueToJsonb(b.res);
}

/*
 * A response's status in one line: "HTTP <code>", with the Status
 * object's message when the body has one (found without a JSON parser: the
 * body may be anything), or the start of the body, made safe for the log.
 */
char *
KubeResponseMessage(long code, const char *body, size_t len)
{
	char	   *msg = NULL;
	const char *m;
	const char *stop = body + len;

	m = len > 0 ? memmem(body, len, "\"message\":", 10) : NULL;
	if (m != NULL)
	{
		const char *q = memchr(m + 10, '"', stop - (m + 10));
		const char *end = q ? q + 1 : NULL;

		while (end && end < stop && *end != '"')
			end += (*end == '\\' && end + 1 < stop) ? 2 : 1;
		if (q && end && end < stop && *end == '"')
			msg = JCut(q + 1, end - q - 1, 300);
	}
	if (msg == NULL && len > 0)
		msg = JCut(body, len, 200);
	return psprintf("HTTP %ld%s%s", code, msg ? ": " : "", msg ? msg : "");
}

/*
 * What went wrong with a request, in one line: the HTTP status with the
 * Status object's message, or curl's error.  Never the token.  (The caller
 * names the request: this part alone tells one failure from another.)
 */
char *
KubeRequestError(KubeRequest *req, CURLcode result)
{
	long		code = KubeRequestStatus(req);
	const char *curlmsg = req->curl_error[0] ? req->curl_error : curl_easy_strerror(result);

	if (result != CURLE_OK && code == 0)
		return pstrdup(curlmsg);
	if (code >= 200 && code < 300)
		return result != CURLE_OK ? psprintf("HTTP %ld, then %s", code, curlmsg)
			: psprintf("HTTP %ld", code);
	return KubeResponseMessage(code, req->response.data, req->response.len);
}

/* ------------------------------------------------------------------------
 * The multi loop
 * ------------------------------------------------------------------------
 */
#ifdef __linux__
/*
 * curl's interest in socket s, into the loop's epoll set: added, changed or
 * taken out (curl says so before it closes a socket).  A change is tried
 * first, and a socket the set does not hold is added: curl tells of a
 * socket again at each new interest, and a closed socket leaves the set
 * by itself; a removal of one the set does not hold is nothing.
 * Should the kernel refuse (out of memory), the loop goes back to making
 * each wait's set from socks[], which it keeps all the same: no ERROR is
 * thrown through curl.
 */
static void
epoll_follow(KubeLoop *loop, curl_socket_t s, int what)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.data.fd = s;
	if (what & CURL_POLL_IN)
		ev.events |= EPOLLIN;
	if (what & CURL_POLL_OUT)
		ev.events |= EPOLLOUT;
	if (what == CURL_POLL_REMOVE)
	{
		(void) epoll_ctl(loop->epfd, EPOLL_CTL_DEL, s, NULL);
		return;
	}
	if (epoll_ctl(loop->epfd, EPOLL_CTL_MOD, s, &ev) == 0)
		return;
	if (errno == ENOENT && epoll_ctl(loop->epfd, EPOLL_CTL_ADD, s, &ev) == 0)
		return;
	elog(LOG, "scheduler: could not watch a socket of the API client (%m); each wait makes its own set now");
	close(loop->epfd);
	loop->epfd = -1;
	FreeWaitEventSet(loop->set);
	loop->set = NULL;
}
#endif

static int
socket_cb(CURL *e pg_attribute_unused(), curl_socket_t s, int what, void *userp,
		  void *socketp pg_attribute_unused())
{
	KubeLoop   *loop = (KubeLoop *) userp;
	int			i;

#ifdef __linux__
	if (loop->epfd >= 0)
		epoll_follow(loop, s, what);
#endif

	for (i = 0; i < loop->nsocks; i++)
		if (loop->socks[i] == s)
			break;
	if (what == CURL_POLL_REMOVE)
	{
		if (i < loop->nsocks)
		{
			loop->socks[i] = loop->socks[loop->nsocks - 1];
			loop->what[i] = loop->what[loop->nsocks - 1];
			loop->nsocks--;
		}
		return 0;
	}
	if (i == loop->nsocks)
	{
		if (loop->nsocks == loop->maxsocks)
		{
			loop->maxsocks *= 2;
			loop->socks = repalloc(loop->socks, loop->maxsocks * sizeof(curl_socket_t));
			loop->what = repalloc(loop->what, loop->maxsocks * sizeof(int));
		}
		loop->socks[i] = s;
		loop->nsocks++;
	}
	loop->what[i] = what;
	return 0;
}

static int
timer_cb(CURLM *m pg_attribute_unused(), long timeout_ms, void *userp)
{
	KubeLoop   *loop = (KubeLoop *) userp;

	loop->timer_ms = timeout_ms;
	loop->timer_set_at = GetCurrentTimestamp();
	return 0;
}

void
KubeLoopInit(KubeLoop *loop)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	curl_init_once();
	memset(loop, 0, sizeof(*loop));
	loop->multi = curl_multi_init();
	if (loop->multi == NULL)
		elog(ERROR, "curl_multi_init failed");
	loop->maxsocks = 16;
	loop->socks = palloc(loop->maxsocks * sizeof(curl_socket_t));
	loop->what = palloc(loop->maxsocks * sizeof(int));
	loop->timer_ms = -1;
	loop->epfd = -1;
#ifdef __linux__
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd >= 0)
	{
		loop->set = CreateWaitEventSet(TopMemoryContext, 3);
		AddWaitEventToSet(loop->set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
		AddWaitEventToSet(loop->set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
		AddWaitEventToSet(loop->set, WL_SOCKET_READABLE, loop->epfd, NULL, NULL);
	}
#endif
	curl_multi_setopt(loop->multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
	curl_multi_setopt(loop->multi, CURLMOPT_SOCKETDATA, loop);
	curl_multi_setopt(loop->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	curl_multi_setopt(loop->multi, CURLMOPT_TIMERDATA, loop);
	MemoryContextSwitchTo(old);
}

void
KubeLoopAdd(KubeLoop *loop, KubeRequest *req)
{
	CURLMcode	rc = curl_multi_add_handle(loop->multi, req->easy);

	if (rc != CURLM_OK)
		elog(ERROR, "curl_multi_add_handle: %s", curl_multi_strerror(rc));
}

/* Abort a request in flight (a stream the owner is done with) */
void
KubeLoopRemove(KubeLoop *loop, KubeRequest *req)
{
	curl_multi_remove_handle(loop->multi, req->easy);
}

/* curl's timer, when it has expired: curl acts on it */
static void
timer_due(KubeLoop *loop)
{
	if (loop->timer_ms >= 0 &&
		(GetCurrentTimestamp() - loop->timer_set_at) / 1000 >= loop->timer_ms)
	{
		loop->timer_ms = -1;
		curl_multi_socket_action(loop->multi, CURL_SOCKET_TIMEOUT, 0, &loop->running);
	}
}

#ifdef __linux__
/*
 * The wait on the set made once: when curl's epoll set is readable, curl
 * acts on each socket ready in it (level-triggered: what is left is ready
 * at the next wait).
 */
static void
wait_epoll(KubeLoop *loop, long timeout, uint32 wait_event_info)
{
	WaitEvent	occurred[3];
	int			n = WaitEventSetWait(loop->set, timeout, occurred, lengthof(occurred), wait_event_info);

	for (int i = 0; i < n; i++)
	{
		struct epoll_event evs[64];
		int			nready;

		if (!(occurred[i].events & WL_SOCKET_READABLE))
			continue;
		nready = epoll_wait(loop->epfd, evs, lengthof(evs), 0);
		for (int k = 0; k < nready; k++)
		{
			int			mask = 0;

			if (evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
				mask |= CURL_CSELECT_IN;
			if (evs[k].events & EPOLLOUT)
				mask |= CURL_CSELECT_OUT;
			if (evs[k].events & EPOLLERR)
				mask |= CURL_CSELECT_ERR;
			curl_multi_socket_action(loop->multi, evs[k].data.fd, mask, &loop->running);
		}
	}
	timer_due(loop);
}
#endif

/*
 * Wait at most max_ms for curl's sockets, curl's timer, the latch or
 * postmaster death, and let curl act on what happened.  The caller resets the
 * latch and checks for interrupts around it.
 */
void
KubeLoopWait(KubeLoop *loop, long max_ms, uint32 wait_event_info)
{
	long		timeout = max_ms;
	WaitEventSet *set;
	WaitEvent  *occurred;
	int			nevents = 2 + loop->nsocks;
	int			n;

	if (loop->timer_ms >= 0)
	{
		long		waited = (GetCurrentTimestamp() - loop->timer_set_at) / 1000;

		timeout = Min(timeout, Max(0, loop->timer_ms - waited));
	}
#ifdef __linux__
	if (loop->epfd >= 0)
	{
		wait_epoll(loop, timeout, wait_event_info);
		return;
	}
#endif
	set = CreateWaitEventSet(CurrentMemoryContext, nevents);
	AddWaitEventToSet(set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	for (int i = 0; i < loop->nsocks; i++)
	{
		uint32		ev = 0;

		if (loop->what[i] & CURL_POLL_IN)
			ev |= WL_SOCKET_READABLE;
		if (loop->what[i] & CURL_POLL_OUT)
			ev |= WL_SOCKET_WRITEABLE;
		AddWaitEventToSet(set, ev, loop->socks[i], NULL, NULL);
	}
	occurred = palloc(nevents * sizeof(WaitEvent));
	n = WaitEventSetWait(set, timeout, occurred, nevents, wait_event_info);
	FreeWaitEventSet(set);

	for (int i = 0; i < n; i++)
	{
		int			mask = 0;

		if (!(occurred[i].events & (WL_SOCKET_READABLE | WL_SOCKET_WRITEABLE)))
			continue;
		if (occurred[i].events & WL_SOCKET_READABLE)
			mask |= CURL_CSELECT_IN;
		if (occurred[i].events & WL_SOCKET_WRITEABLE)
			mask |= CURL_CSELECT_OUT;
		curl_multi_socket_action(loop->multi, occurred[i].fd, mask, &loop->running);
	}
	pfree(occurred);
	timer_due(loop);
}

/* The next finished request (removed from the loop), or NULL */
KubeRequest *
KubeLoopNextDone(KubeLoop *loop, CURLcode *result)
{
	CURLMsg    *msg;
	int			left;

	while ((msg = curl_multi_info_read(loop->multi, &left)) != NULL)
	{
		KubeRequest *req = NULL;

		if (msg->msg != CURLMSG_DONE)
			continue;
		*result = msg->data.result;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **) &req);
		curl_multi_remove_handle(loop->multi, msg->easy_handle);
		return req;
	}
	return NULL;
}

/*
 * The delay before retry number failures (1, 2, ...): base doubling up to
 * max, plus up to as much again at random (client-go's wait.Jitter(d, 1.0)).
 */
long
KubeJitteredBackoff(int failures, long base_ms, long max_ms)
{
	long		d = base_ms;

	for (int i = 1; i < failures && d < max_ms; i++)
		d *= 2;
	d = Min(d, max_ms);
	return d + (long) (pg_prng_double(&pg_global_prng_state) * d);
}

/*
 * The kind of a failure: its text with every number made "#", so that what
 * changes from one try to the next (curl's "after 2 ms", an HTTP/2 stream's
 * number, a port) makes no other kind.
 */
#define MAX_FAILURE_KINDS 32

static char *
failure_kind(const char *detail)
{
	StringInfoData b;

	initStringInfo(&b);
	for (const char *c = detail; *c; c++)
	{
		if (isdigit((unsigned char) *c))
		{
			appendStringInfoChar(&b, '#');
			while (isdigit((unsigned char) c[1]))
				c++;
		}
		else
			appendStringInfoChar(&b, *c);
	}
	return b.data;
}

/*
 * Log a failure once per kind: the same kind of trouble again (for any
 * request of this worker) stays quiet while it retries with backoff, until
 * the API server answers again.  Compared without the request, so that one
 * wrong token is one line, not one per resource; and without its numbers
 * (failure_kind), so that an outage is a line per kind of failure, not one
 * per try.
 */
void
KubeLogFailure(KubeFailureLog *log, const char *what, const char *detail)
{
	char	   *kind = failure_kind(detail);
	ListCell   *lc;
	MemoryContext old;

	foreach(lc, log->kinds)
		if (strcmp((char *) lfirst(lc), kind) == 0)
			return;
	/* a message naming each object makes a kind each: a bound, then silence */
	if (list_length(log->kinds) > MAX_FAILURE_KINDS)
		return;
	old = MemoryContextSwitchTo(TopMemoryContext);
	log->kinds = lappend(log->kinds, pstrdup(list_length(log->kinds) == MAX_FAILURE_KINDS ? "" : kind));
	MemoryContextSwitchTo(old);
	if (list_length(log->kinds) > MAX_FAILURE_KINDS)
	{
		ereport(LOG,
				(errmsg("%s: %s: %s", log->who, what, detail),
				 errdetail("Retrying with backoff; no further failure is logged until the API server answers (%d kinds so far).",
						   MAX_FAILURE_KINDS + 1)));
		return;
	}
	ereport(LOG,
			(errmsg("%s: %s: %s", log->who, what, detail),
			 errdetail("Retrying with backoff; this kind of failure is not logged again until the API server answers.")));
}

/* The API server answers again: say so once */
void
KubeLogRecovery(KubeFailureLog *log)
{
	if (log->kinds != NIL)
	{
		ereport(LOG, (errmsg("%s: the API server answers again", log->who)));
		list_free_deep(log->kinds);
		log->kinds = NIL;
	}
}

/* ------------------------------------------------------------------------
 * scheduler.kube_connection(kubeconfig text DEFAULT NULL, context text DEFAULT NULL)
 * ------------------------------------------------------------------------
 */
static void
put(JsonbParseState **st, const char *key, const char *val)
{
	JPushString(st, WJB_KEY, key);
	if (val)
		JPushString(st, WJB_VALUE, val);
	else
	{
		JsonbValue	null = {.type = jbvNull};

		pushJsonbValue(st, WJB_VALUE, &null);
	}
}

PG_FUNCTION_INFO_V1(scheduler_kube_connection);
/*
 * What the workers would connect with, or what a kubeconfig file gives:
 * where the settings come from, the server, the context, cluster and user,
 * and how the server is checked and the scheduler authenticated.  Never a
 * secret.  An ERROR says why there is no connection.  Superusers only: it
 * reads files, as the file settings do.
 */
Datum
scheduler_kube_connection(PG_FUNCTION_ARGS)
{
	KubeConfig	cfg;
	char	   *error = NULL;
	bool		ok;
	JsonbParseState *st = NULL;
	const char *source;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only superusers may call scheduler.kube_connection()"),
				 errdetail("It reads the connection's files, as the superuser-only settings name them.")));
	memset(&cfg, 0, sizeof(cfg));
	if (!PG_ARGISNULL(0))
	{
		source = "kubeconfig";
		ok = KubeconfigLoad(&cfg, text_to_cstring(PG_GETARG_TEXT_PP(0)),
							PG_ARGISNULL(1) ? scheduler_kube_context : text_to_cstring(PG_GETARG_TEXT_PP(1)),
							&error) && blobs_taken(&cfg, &error);
	}
	else if (!KubeApiConfigured())
	{
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		put(&st, "source", "none");
		PG_RETURN_JSONB_P(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL)));
	}
	else
	{
		ok = KubeConfigLoad(&cfg, &error);
		source = cfg.in_cluster ? "in-cluster" : cfg.kubeconfig ? "kubeconfig" : "settings";
	}
	if (!ok)
		KubeConfigFree(&cfg);	/* what was read before the failure: zeroed */
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("no connection to the API server: %s", error)));
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	put(&st, "source", source);
	put(&st, "kubeconfig", cfg.kubeconfig);
	put(&st, "context", cfg.context);
	put(&st, "cluster", cfg.cluster);
	put(&st, "user", cfg.user);
	put(&st, "server", cfg.url);
	put(&st, "ca", cfg.insecure ? "not verified (insecure-skip-tls-verify)" :
		cfg.ca_data ? "inline" : cfg.ca_file ? cfg.ca_file : "the system's");
	put(&st, "client_certificate", cfg.cert_data ? "inline" : cfg.cert_file);
	put(&st, "token", cfg.token == NULL ? NULL : cfg.token_file ? cfg.token_file :
		set(scheduler_kube_token_file) && !cfg.kubeconfig ? scheduler_kube_token_file :
		cfg.in_cluster ? psprintf("%s/token", sa_dir()) : "inline");
	KubeConfigFree(&cfg);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL)));
}
