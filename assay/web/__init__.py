"""The platform's pages and their plumbing: views (home, workspaces, settings), forms, the
`workspace_view` decorator, the template context and /healthz."""
