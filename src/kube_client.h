/*
 * kube_client.h
 *	  The HTTP client the background workers talk to the API server with:
 *	  connection settings (GUCs, in-cluster defaults), curl handles carrying
 *	  them, and a curl multi driven from one WaitEventSet (latch, postmaster
 *	  death and curl's sockets).
 */
#ifndef SCHEDULER_KUBE_CLIENT_H
#define SCHEDULER_KUBE_CLIENT_H

#include <curl/curl.h>

#include "datatype/timestamp.h"
#include "storage/latch.h"
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"

#include "kubeconfig.h"


/* One request in flight: the response collected as it comes */
typedef struct KubeRequest
{
	CURL	   *easy;
	struct curl_slist *headers;
	char	   *method;
	char	   *path;			/* for messages: never carries a secret */
	char	   *body;			/* request body, kept alive until done */
	StringInfoData response;	/* the body received (unless streamed) */
	char		curl_error[CURL_ERROR_SIZE];
	/* streaming: called for each complete line; NULL collects the body */
	void		(*on_line) (struct KubeRequest *req, char *line, size_t len);
	void	   *arg;			/* the owner's */
	bool		failed;			/* the owner asked to stop */
} KubeRequest;

/* A curl multi whose sockets are waited on with the latch */
typedef struct KubeLoop
{
	CURLM	   *multi;
	int			nsocks;
	int			maxsocks;
	curl_socket_t *socks;
	int		   *what;			/* CURL_POLL_IN/OUT/INOUT per socket */
	long		timer_ms;		/* curl's timer: -1 none */
	TimestampTz timer_set_at;
	int			running;
	/*
	 * On Linux, curl's sockets are also kept in an epoll set of their own
	 * (epfd, -1: none), changed as curl says, and a wait is on a set made
	 * once: the latch, postmaster death and epfd.  Elsewhere each wait
	 * makes its set anew from socks[].
	 */
	int			epfd;
	WaitEventSet *set;
} KubeLoop;

extern char *scheduler_kube_token_file;
extern char *scheduler_kube_ca_file;
extern char *scheduler_kube_client_cert_file;
extern char *scheduler_kube_client_key_file;
extern char *scheduler_kubeconfig;
extern char *scheduler_kube_context;

extern void KubeClientInit(void);
extern bool KubeApiConfigured(void);
extern bool KubeConfigLoad(KubeConfig *cfg, char **error);
extern void KubeConfigFree(KubeConfig *cfg);

extern KubeRequest *KubeRequestNew(KubeConfig *cfg, const char *method, const char *path,
								   const char *content_type, const char *body, long timeout_ms);
extern void KubeRequestFree(KubeRequest *req);
extern long KubeRequestStatus(KubeRequest *req);
extern long KubeRetryAfterMs(KubeRequest *req);
extern char *KubeRequestError(KubeRequest *req, CURLcode result);
extern char *KubeResponseMessage(long code, const char *body, size_t len);
extern size_t KubeFeed(KubeRequest *req, const char *data, size_t n, bool stream);
extern Jsonb *KubeParseJson(const char *text, size_t len);
extern char *KubePathSegment(const char *s);

extern void KubeLoopInit(KubeLoop *loop);
extern void KubeLoopAdd(KubeLoop *loop, KubeRequest *req);
extern void KubeLoopRemove(KubeLoop *loop, KubeRequest *req);
extern void KubeLoopWait(KubeLoop *loop, long max_ms, uint32 wait_event_info);
extern KubeRequest *KubeLoopNextDone(KubeLoop *loop, CURLcode *result);

/* A worker's failures, each logged once (while it keeps failing the same way) */
typedef struct KubeFailureLog
{
	const char *who;			/* "scheduler watch" */
	List	   *kinds;			/* the kinds of failure logged since it last answered */
} KubeFailureLog;

extern long KubeJitteredBackoff(int failures, long base_ms, long max_ms);
extern void KubeLogFailure(KubeFailureLog *log, const char *what, const char *detail);
extern void KubeLogRecovery(KubeFailureLog *log);

#endif
