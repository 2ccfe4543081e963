"""Reaching a subject: its target (a URL, a command, a listening address or the embedded reference), the
run's configuration and options, the control API client, settling, and the processes the harness starts. Below
the roles: nothing here speaks the protocols.
"""
