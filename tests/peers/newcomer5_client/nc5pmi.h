/* nc5pmi.h - a small PMI-1 client library (MPICH pmi.h compatible API) */
#ifndef NC5PMI_H
#define NC5PMI_H

#ifdef __cplusplus
extern "C" {
#endif

#define PMI_SUCCESS                  0
#define PMI_FAIL                    -1
#define PMI_ERR_INIT                 1
#define PMI_ERR_NOMEM                2
#define PMI_ERR_INVALID_ARG          3
#define PMI_ERR_INVALID_KEY          4
#define PMI_ERR_INVALID_KEY_LENGTH   5
#define PMI_ERR_INVALID_VAL          6
#define PMI_ERR_INVALID_VAL_LENGTH   7
#define PMI_ERR_INVALID_LENGTH       8
#define PMI_ERR_INVALID_NUM_ARGS     9
#define PMI_ERR_INVALID_ARGS        10
#define PMI_ERR_INVALID_NUM_PARSED  11
#define PMI_ERR_INVALID_KEYVALP     12
#define PMI_ERR_INVALID_SIZE        13

#define PMI_FALSE 0
#define PMI_TRUE  1

int PMI_Init(int *spawned);
int PMI_Initialized(int *initialized);
int PMI_Finalize(void);
int PMI_Get_size(int *size);
int PMI_Get_rank(int *rank);
int PMI_Get_universe_size(int *size);
int PMI_Get_appnum(int *appnum);
int PMI_Abort(int exit_code, const char error_msg[]);

int PMI_KVS_Get_my_name(char kvsname[], int length);
int PMI_KVS_Get_name_length_max(int *length);
int PMI_KVS_Get_key_length_max(int *length);
int PMI_KVS_Get_value_length_max(int *length);
int PMI_KVS_Put(const char kvsname[], const char key[], const char value[]);
int PMI_KVS_Commit(const char kvsname[]);
int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length);
int PMI_Barrier(void);

int PMI_Publish_name(const char service_name[], const char port[]);
int PMI_Unpublish_name(const char service_name[]);
int PMI_Lookup_name(const char service_name[], char port[]);

#ifdef __cplusplus
}
#endif

#endif
