"""The figures and verdict of a load run (simulator/profiles/load/summary.py) from fixed Locust CSV text. Pure."""

from __future__ import annotations

from simulator.profiles.load.summary import EXIT_FAILED, EXIT_OK, exit_code, phase_figures, read_failures, read_stats, \
    server_view

HEAD = ("Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,Min Response Time,"
        "Max Response Time,Average Content Size,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,"
        "100%\n")
STATS = HEAD + (
    "frames,lifecycle,40,0,0,0.0,0,0,8.0,20.0,0.0,0,0,0,0,0,0,0,0,0,0,0\n"
    "lifecycle,task,40,1,15,16.0,10,3000,3600.0,20.0,0.5,15,16,17,18,20,25,30,3000,3000,3000,3000\n"
    ",Aggregated,80,1,5,8.0,0,3000,1800.0,40.0,0.5,5,6,7,8,10,12,15,20,3000,3000,3000\n")
FAILURES = ("Method,Name,Error,Occurrences,First Seen,Last Seen\n"
            "lifecycle,task,\"LifecycleFailed('LOST chatId=run-d1-c00002 requestId=r9: no turn.delivery(delivered) "
            "within 3 s')\",1,0,0\n")


def test_the_lifecycle_figures_and_the_named_lost_task() -> None:
    f = phase_figures("lifecycle", read_stats(STATS), read_failures(FAILURES))
    assert (f.tasks, f.failures, f.frames, f.bytes_per_task) == (40, 1, 320, 3600.0)
    assert f.tasks_per_s == 20.0 and f.frames_per_s == 160.0  # 320 frames over the 2 s the 40 tasks took
    assert f.latency_ms == {"p50": 15.0, "p95": 25.0, "p99": 3000.0}
    assert f.lost == ["run-d1-c00002"] and f.duplicated == [] and f.invalid == []
    assert exit_code(f, None) == EXIT_FAILED


def test_a_clean_phase_passes_and_an_empty_one_fails() -> None:
    clean = phase_figures("lifecycle", read_stats(STATS.replace(",40,1,", ",40,0,")), [])
    assert exit_code(clean, None) == EXIT_OK
    assert exit_code(phase_figures("lifecycle", read_stats(HEAD), []), None) == EXIT_FAILED  # nothing ran


def test_the_server_view_names_a_double_publish_and_fails_the_run() -> None:
    messages = [{"chatId": "run-c1", "state": "done", "publishes": 1},
                {"chatId": "run-c2", "state": "done", "publishes": 2},
                {"chatId": "other-c3", "state": "done", "publishes": 5}]
    view = server_view(messages, "run-", completed=2)
    assert (view.messages, view.done, view.published_twice, view.not_published) == (2, 2, ["run-c2 (2 publishes)"],
                                                                                    [])
    clean = phase_figures("lifecycle", read_stats(STATS.replace(",40,1,", ",40,0,")), [])
    assert exit_code(clean, view) == EXIT_FAILED
    assert exit_code(clean, server_view(messages[:1], "run-", completed=1)) == EXIT_OK


def test_unpublished_messages_are_named_only_when_fewer_were_published_than_completed() -> None:
    messages = [{"chatId": "run-c1", "state": "done", "publishes": 1},
                {"chatId": "run-c2", "state": "working", "publishes": 0}]
    assert server_view(messages, "run-", completed=1).not_published == []
    assert server_view(messages, "run-", completed=2).not_published == ["run-c2"]


def test_the_rates_are_taken_over_the_processes_window_when_they_report_it() -> None:
    windows = [{"first": 100.0, "last": 102.0, "tasks": 30, "frames": 240},
               {"first": 100.5, "last": 104.0, "tasks": 10, "frames": 80}]
    f = phase_figures("lifecycle", read_stats(STATS), [], windows)
    assert f.window_s == 4.0 and f.tasks_per_s == 10.0 and f.frames_per_s == 80.0
    assert f.locust_tasks_per_s == 20.0


def test_the_event_stream_of_an_mcp_answer_is_split_by_lines_not_by_unicode_separators() -> None:
    from simulator.profiles.load.mcp_rpc import sse_data

    body = 'event: message\r\ndata: {"id": 1, "t": "a\u2028b"}\r\n\r\ndata: one\ndata: two\n\n'
    assert sse_data(body) == ['{"id": 1, "t": "a\u2028b"}', "one\ntwo"]
