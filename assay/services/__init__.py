"""Business logic for workspaces, members, API tokens, secrets, model providers and worker
heartbeats: one module per subject, every service importable from `assay.services`."""

from .credentials import (  # noqa: F401
    MAX_SECRET_BYTES,
    SECRET_NAME,
    IssuedToken,
    hashed_key_revoke,
    secret_named_delete,
    secret_named_save,
    secret_reveal,
    secret_store,
    token_authenticate,
    token_issue,
    token_revoke,
)
from .providers import (  # noqa: F401
    connection_test,
    prices_problem,
    provider_create,
    provider_delete,
    provider_test_connection,
    provider_try_connection,
    provider_update,
)
from .workers import (  # noqa: F401
    worker_beat,
)
from .workspaces import (  # noqa: F401
    INVITATION_DAYS,
    SLUG_ALPHABET,
    IssuedInvitation,
    IssuedMember,
    admin_bootstrap,
    invitation_accept,
    invitation_accept_new_user,
    invitation_create,
    invitation_revoke,
    member_create_with_password,
    membership_add,
    membership_remove,
    membership_update,
    password_change_done,
    preference_language_set,
    user_create,
    workspace_create,
    workspace_rename,
)
