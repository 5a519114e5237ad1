/*
 * kubeconfig.h
 *	  Connection settings from a kubeconfig file (kubeconfig.c), and the
 *	  YAML subset it is read with.
 */
#ifndef SCHEDULER_KUBECONFIG_H
#define SCHEDULER_KUBECONFIG_H

/* Where and how to reach the API server, resolved from the GUCs or a kubeconfig */
typedef struct KubeConfig
{
	char	   *url;			/* base URL, no trailing slash; NULL: none */
	char	   *token;			/* bearer token, or NULL */
	char	   *ca_file;
	char	   *cert_file;
	char	   *key_file;
	/* a kubeconfig's inline data, decoded (handed to curl as blobs) */
	char	   *ca_data;
	size_t		ca_data_len;
	char	   *cert_data;
	size_t		cert_data_len;
	char	   *key_data;
	size_t		key_data_len;
	bool		insecure;		/* insecure-skip-tls-verify */
	bool		in_cluster;		/* taken from the service-account files */
	/* where they came from, for messages and scheduler.kube_connection() */
	char	   *kubeconfig;		/* the file, or NULL */
	char	   *context;
	char	   *cluster;
	char	   *user;
	char	   *token_file;
} KubeConfig;

typedef enum YKind
{
	Y_NULL,
	Y_SCALAR,
	Y_MAP,
	Y_SEQ
} YKind;

/* A parsed YAML node: every scalar a string */
typedef struct YNode
{
	YKind		kind;
	char	   *str;			/* Y_SCALAR */
	int			n;				/* Y_MAP, Y_SEQ: entries */
	int			cap;
	char	  **keys;			/* Y_MAP: keys (NULL in a sequence) */
	struct YNode **vals;
} YNode;

extern YNode *YamlParse(const char *text, size_t len, char **error);
extern YNode *YamlGet(YNode *map, const char *key);
extern void YamlWipe(YNode *n);

extern char *KubeReadToken(const char *path, char **error);
extern bool KubeconfigResolve(KubeConfig *cfg, YNode *root, const char *context, const char *dir, char **error);
extern bool KubeconfigLoad(KubeConfig *cfg, const char *path, const char *context, char **error);

#endif
