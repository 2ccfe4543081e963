"""Step vocabulary of faults_hook_server (filled in by its issue-17 work)."""
