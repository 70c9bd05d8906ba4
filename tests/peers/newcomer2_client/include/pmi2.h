/* pmi2.h: the PMI-2 client API of newcomer2_client (a test peer).
 * The ABI (names, signatures, constants) that MPI libraries link against. */
#ifndef PMI2_H_INCLUDED
#define PMI2_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

#define PMI2_VERSION 2
#define PMI2_SUBVERSION 0
/* The API draft names these PMI_VERSION/PMI_SUBVERSION; pmi.h uses the same
 * names for PMI-1, so whichever header comes first defines them. */
#ifndef PMI_VERSION
#define PMI_VERSION 2
#endif
#ifndef PMI_SUBVERSION
#define PMI_SUBVERSION 0
#endif

/* Sizes of the API: buffer sizes that include the terminating NUL. */
#define PMI2_MAX_KEYLEN 64
#define PMI2_MAX_VALLEN 1024
#define PMI2_MAX_ATTRVALUE 1024
#define PMI2_ID_NULL -1

/* Return codes. */
#define PMI2_SUCCESS 0
#define PMI2_FAIL -1
#define PMI2_ERR_INIT 1
#define PMI2_ERR_NOMEM 2
#define PMI2_ERR_INVALID_ARG 3
#define PMI2_ERR_INVALID_KEY 4
#define PMI2_ERR_INVALID_KEY_LENGTH 5
#define PMI2_ERR_INVALID_VAL 6
#define PMI2_ERR_INVALID_VAL_LENGTH 7
#define PMI2_ERR_INVALID_LENGTH 8
#define PMI2_ERR_INVALID_NUM_ARGS 9
#define PMI2_ERR_INVALID_ARGS 10
#define PMI2_ERR_INVALID_NUM_PARSED 11
#define PMI2_ERR_INVALID_KEYVALP 12
#define PMI2_ERR_INVALID_SIZE 13
#define PMI2_ERR_OTHER 14

typedef struct PMI2_keyval_t {
    const char *key;
    char *val;
} PMI2_keyval_t;

/* How two jobs' leaders talk when the server cannot copy key-value pairs
 * between jobs itself (job-connect answered kvscopy=TRUE). */
typedef struct PMI2_Connect_comm {
    int (*read)(void *buf, int maxlen, void *ctx);
    int (*write)(const void *buf, int len, void *ctx);
    void *ctx;
    int isMaster;
} PMI2_Connect_comm_t;

/* Initialisation and termination. */
int PMI2_Init(int *spawned, int *size, int *rank, int *appnum);
int PMI2_Finalize(void);
int PMI2_Initialized(void);
int PMI2_Abort(int flag, const char msg[]);

/* Jobs. */
int PMI2_Job_Spawn(int count, const char *cmds[], int argcs[], const char **argvs[],
                   const int maxprocs[], const int info_keyval_sizes[],
                   const PMI2_keyval_t *info_keyval_vectors[], int preput_keyval_size,
                   const PMI2_keyval_t *preput_keyval_vector[], char jobId[], int jobIdSize,
                   int errors[]);
int PMI2_Job_GetId(char jobid[], int jobid_size);
int PMI2_Job_GetRank(int *rank);
int PMI2_Info_GetSize(int *size);
int PMI2_Job_Connect(const char jobid[], PMI2_Connect_comm_t *conn);
int PMI2_Job_Disconnect(const char jobid[]);

/* Key-value space.  PMI2_KVS_Get sets *vallen to the value's length, or to
 * minus that length when the value did not fit in maxvalue bytes (then the
 * value is truncated; a buffer of -*vallen + 1 bytes holds it). */
int PMI2_KVS_Put(const char key[], const char value[]);
int PMI2_KVS_Fence(void);
int PMI2_KVS_Get(const char *jobid, int src_pmi_id, const char key[], char value[], int maxvalue,
                 int *vallen);

/* Node and job attributes. */
int PMI2_Info_GetNodeAttr(const char name[], char value[], int valuelen, int *found, int waitfor);
int PMI2_Info_GetNodeAttrIntArray(const char name[], int array[], int arraylen, int *outlen,
                                  int *found);
int PMI2_Info_PutNodeAttr(const char name[], const char value[]);
int PMI2_Info_GetJobAttr(const char name[], char value[], int valuelen, int *found);
int PMI2_Info_GetJobAttrIntArray(const char name[], int array[], int arraylen, int *outlen,
                                 int *found);

/* Name service. */
int PMI2_Nameserv_publish(const char service_name[], const PMI2_keyval_t *info_ptr,
                          const char port[]);
int PMI2_Nameserv_lookup(const char service_name[], const PMI2_keyval_t *info_ptr, char port[],
                         int portLen);
int PMI2_Nameserv_unpublish(const char service_name[], const PMI2_keyval_t *info_ptr);

#ifdef __cplusplus
}
#endif
#endif
