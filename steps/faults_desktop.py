"""Step vocabulary of faults_desktop (filled in by its issue-17 work)."""
