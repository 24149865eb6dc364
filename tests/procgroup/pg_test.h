/* SPDX-License-Identifier: GPL-2.0-only */
/* What the procgroup tests share: the fixtures' ids and a reader for them. */
#ifndef ASYS_TEST_PG_TEST_H
#define ASYS_TEST_PG_TEST_H

#include <stddef.h>
#include <check.h>

#define ID_DOCKERV1 "6f1c3a260be1fc1d6102697c7bc37f9fa5d177d3141e61df8d23dfdfb514e312"
#define ID_DOCKERV2 "f45d3d5de96c9d80bad8e1f454937ddc315d8f2ecd6bef9f83760ca871e21db6"
#define ID_CONTAINERD "2397d068a8d1552a4c3f9147ba9c94e086bfd66fb2acb5bbaf47197105127d5f"
#define ID_NERDCTL "aa470170773aae4a69e6e0a509eb8c1f304140b1fea1a2d55ec93a07a78e497c"
#define ID_PODBURST "0581acf7a71805d312f854d7edc98855c7bfbd3119d6d4e9a5556ec2e93f2f90"
#define ID_PODBESTEFF "4f8d9a8b456eee7ceb21950dc4c176d83ea2bf05e9775efe8850907713cb35f1"
#define ID_PODCGFS "da40eb7c741e075993f4276495d9fb6a07d699d1be21f729183bdd6fcdca4382"
#define ID_PODCGFS2 "78c5535287123e818e99f01b78d4b8e75e94671568c5fae04aba9df045a263de"
#define ID_PODGUAR "143cce5bac2d7de888c1f16f34bf7f56e6be6408bbd3ed938125645e5728619e"
#define ID_PODMAN "2f259bab93aaaaa2542ba43ef33eb990d0999ee1b9924b557b7be53c0b7a1bb9"
#define ID_BADNAME "ef70568fc076d7cc56df078730a9db23f5b9d3c1c86b36b998aae8809e1b4052"
#define UID_BURST "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d"
#define UID_BEFF "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
#define UID_CGBURST "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
#define UID_CGBEFF "77aa88bb-99cc-4dde-8eff-001122334455"
#define UID_GUAR "5e5e5e5e-1234-4abc-8def-0123456789ab"

/* tests/fixtures/procgroup/REL, whole, NUL-terminated (free it); *len
 * gets its size. */
char *pg_slurp(const char *rel, size_t *len);

Suite *procgroup_name_suite(void);
Suite *procgroup_cache_suite(void);

#endif
