/* Behaviour mutants of the groups profile (SPEC.md §12): the strict persona
 * with one GROUP clause broken.  groups.c tests them by name through its
 * port (pms_group_port.mutant, GMUT()); group-profile-hidden is tested in
 * v2_cmds.c, where PMI_ext_groups is answered. */
#include "mutant.h"

const pms_mutant pms_mutants_groups[] = {
    { "group-profile-hidden", "GROUP-2", "PMI_ext_groups is answered found=FALSE although every group- command is served", NULL, NULL },
    { "group-cross-job-refused", "GROUP-6", "a process of another job (a spawned one too) is refused as reason=invalid", NULL, NULL },
    { "group-members-unsorted", "GROUP-7", "a result's members are listed backwards (rank, then job id, descending)", NULL, NULL },
    { "group-event-unsubscribed", "GROUP-8", "group-event frames also go to connected processes that never sent group-subscribe", NULL, NULL },
    { "group-event-thrid", "GROUP-9", "every group-event carries thrid=1", NULL, NULL },
    { "group-thrid-dropped", "GROUP-11", "no group- response echoes its request's thrid", NULL, NULL },
    { "group-complete-early", "GROUP-13", "a construct completes once every leader is here, without the added members they named", NULL, NULL },
    { "group-bootstrap-count-off", "GROUP-13", "a bootstrap construct completes when nleaders-1 leaders have arrived", NULL, NULL },
    { "group-ctxid-reused", "GROUP-15", "the newest group's ctxid is given again once it is destructed", NULL, NULL },
    { "group-mismatch-accepted", "GROUP-16", "bootstrap leaders that disagree on nleaders are not refused (the first one's count holds)", NULL, NULL },
    { "group-not-member-joined", "GROUP-16", "an added member nobody named is taken into the group instead of refused not-member", NULL, NULL },
    { "group-exists-allowed", "GROUP-17", "a construct of a completed, not destructed group's name is carried out", NULL, NULL },
    { "group-procid-unchecked", "GROUP-17", "a process id whose rank is beyond its job's size is accepted (and fails as exited)", NULL, NULL },
    { "group-join-unknown-ok", "GROUP-19", "group-join without an outstanding invitation is answered rc=0", NULL, NULL },
    { "group-invite-failed-silent", "GROUP-20", "no event=invite-failed reaches the leader (the result still lists failed)", NULL, NULL },
    { "group-decline-joined", "GROUP-21", "an invitee that declines is taken into the group as if it accepted", NULL, NULL },
    { "group-leader-exit-silent", "GROUP-21", "when the leader ends first, the invitees that accepted get no event=complete", NULL, NULL },
    { "group-info-dropped", "GROUP-22", "the contributions of added members (method=member) are left out of the result", NULL, NULL },
    { "group-get-nonmember", "GROUP-23", "group-get from a process outside the group is answered rc=0 from its contributions", NULL, NULL },
    { "group-timeout-ignored", "GROUP-24", "a construct's timeout is never applied: it waits until it completes", NULL, NULL },
    { "group-timeout-no-failed", "GROUP-24", "a construct's timeout answer lacks failed (the participants that had not arrived)", NULL, NULL },
    { "group-exit-unnoticed", "GROUP-25", "a construct goes on waiting when a participant's connection closes", NULL, NULL },
    { "group-destruct-early", "GROUP-27", "group-destruct is answered rc=0 at once, without the other members", NULL, NULL },
    { "group-limit-silent", "GROUP-28", "contributions beyond 16 pairs are cut to 16 with rc=0, not refused reason=limit", NULL, NULL },
    { "group-limit-reason", "GROUP-28", "a request beyond the server's limits is answered reason=invalid, not limit", NULL, NULL },
    { "group-errmsg-missing", "GROUP-29", "failed group- responses and events carry no errmsg", NULL, NULL },
    { "group-invalid-rc1", "GROUP-29", "an invalid or oversized group- request is answered rc=1, not 3", NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL },
};
