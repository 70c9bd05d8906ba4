/* pmi.h: the PMI-1 client API of newcomer2_client (a test peer).
 * The ABI (names, signatures, constants) that MPI libraries link against. */
#ifndef PMI_H_INCLUDED
#define PMI_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PMI_VERSION
#define PMI_VERSION 1
#endif
#ifndef PMI_SUBVERSION
#define PMI_SUBVERSION 1
#endif

/* Return codes. */
#define PMI_SUCCESS 0
#define PMI_FAIL -1
#define PMI_ERR_INIT 1
#define PMI_ERR_NOMEM 2
#define PMI_ERR_INVALID_ARG 3
#define PMI_ERR_INVALID_KEY 4
#define PMI_ERR_INVALID_KEY_LENGTH 5
#define PMI_ERR_INVALID_VAL 6
#define PMI_ERR_INVALID_VAL_LENGTH 7
#define PMI_ERR_INVALID_LENGTH 8
#define PMI_ERR_INVALID_NUM_ARGS 9
#define PMI_ERR_INVALID_ARGS 10
#define PMI_ERR_INVALID_NUM_PARSED 11
#define PMI_ERR_INVALID_KEYVALP 12
#define PMI_ERR_INVALID_SIZE 13

typedef int PMI_BOOL;
#define PMI_TRUE 1
#define PMI_FALSE 0

typedef struct PMI_keyval_t {
    const char *key;
    char *val;
} PMI_keyval_t;

/* Initialisation and process information. */
int PMI_Init(int *spawned);
int PMI_Initialized(PMI_BOOL *initialized);
int PMI_Finalize(void);
int PMI_Get_size(int *size);
int PMI_Get_rank(int *rank);
int PMI_Get_universe_size(int *size);
int PMI_Get_appnum(int *appnum);
/* Processes on this node (from PMI_process_mapping). */
int PMI_Get_clique_size(int *size);
int PMI_Get_clique_ranks(int ranks[], int length);

/* Name service. */
int PMI_Publish_name(const char service_name[], const char port[]);
int PMI_Unpublish_name(const char service_name[]);
/* port must hold at least 256 bytes. */
int PMI_Lookup_name(const char service_name[], char port[]);

/* Synchronisation and termination. */
int PMI_Barrier(void);
int PMI_Abort(int exit_code, const char error_msg[]);

/* Key-value space. */
int PMI_KVS_Get_my_name(char kvsname[], int length);
int PMI_KVS_Get_name_length_max(int *length);
int PMI_KVS_Get_key_length_max(int *length);
int PMI_KVS_Get_value_length_max(int *length);
int PMI_KVS_Put(const char kvsname[], const char key[], const char value[]);
int PMI_KVS_Commit(const char kvsname[]);
int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length);

/* Dynamic processes. */
int PMI_Spawn_multiple(int count, const char *cmds[], const char **argvs[], const int maxprocs[],
                       const int info_keyval_sizesp[], const PMI_keyval_t *info_keyval_vectors[],
                       int preput_keyval_size, const PMI_keyval_t preput_keyval_vector[],
                       int errors[]);

#ifdef __cplusplus
}
#endif
#endif
