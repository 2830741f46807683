"""The metering proxy over real HTTP in front of the real replay server: usage, prices, keys, budget."""

from __future__ import annotations

import httpx
import pytest

from harness.agents.metering.prices import UnpricedModel, price_table
from harness.agents.metering.proxy import Budget, CallNotAdmitted, CallReport, MeteringProxy, ProxyConfig, start_proxy
from harness.agents.metering.usage import Usage, UsageReader
from harness.replay.conversation import Reply
from harness.replay.protocols import chat, messages, responses

REPLY = Reply(text="hi", tool_call=None, input_tokens=1000, cached_tokens=600, output_tokens=50)
EXPECTED = Usage(input_tokens=400, cached_input_tokens=600, output_tokens=50)
KEY, REAL_KEY = "throwaway", "real-provider-key-never-shown"


@pytest.mark.parametrize(
    "protocol,stream", [("responses", responses.stream), ("messages", messages.stream), ("chat", chat.stream)]
)
def test_usage_is_read_from_a_stream_in_any_chunking(protocol, stream):
    raw = "".join(stream(REPLY, "m")).encode()
    for size in (1, 7, len(raw)):
        reader = UsageReader(protocol)
        for start in range(0, len(raw), size):
            reader.feed(raw[start : start + size])
        reader.finish()
        assert reader.usage == EXPECTED and reader.complete


@pytest.mark.parametrize(
    "protocol,whole",
    [
        ("responses", lambda r, m: responses.response(r, m, "id")),
        ("messages", messages.message),
        ("chat", chat.completion),
    ],
)
def test_usage_is_read_from_a_whole_body(protocol, whole):
    import json

    reader = UsageReader(protocol)
    reader.body(json.dumps(whole(REPLY, "m")).encode())
    assert reader.usage == EXPECTED


def test_prices_match_dated_snapshots_by_prefix_and_refuse_unknown_models():
    table = price_table()
    assert table.cents("openai", "gpt-5", Usage(input_tokens=1_000_000)) == pytest.approx(125.0)
    assert table.price("anthropic", "claude-sonnet-4-5-20250929") == table.price("anthropic", "claude-sonnet-4-5")
    assert table.price("openai", "gpt-5-mini") != table.price("openai", "gpt-5")
    with pytest.raises(UnpricedModel):
        table.price("openai", "gpt-5x")
    for provider in table.providers.values():
        assert provider.source and provider.checked


def test_budget_admits_until_an_estimate_or_a_charge_passes_it_and_then_never_again():
    budget = Budget(10)
    assert budget.admit(4) and budget.charge(6) == 6 and budget.admit(4)
    assert not budget.admit(4.5)
    assert not budget.admit(0), "once exceeded, stays exceeded"
    unlimited = Budget(None)
    unlimited.charge(1e9)
    assert unlimited.admit(1e9)


def _proxy(replay, admit=None, **config):
    reports: list[CallReport] = []
    proxy, server = start_proxy(
        ProxyConfig(**({"upstream": replay.url, "client_key": KEY, "provider": "openai"} | config)),
        reports.append,
        admit,
    )
    return proxy, server, reports


CALLS = [
    (
        "openai",
        "/v1/responses",
        {"model": "gpt-5-codex", "input": [], "tools": [{"type": "function", "name": "exec_command"}]},
        {"authorization": f"Bearer {KEY}"},
    ),
    (
        "anthropic",
        "/v1/messages?beta=true",
        {"model": "claude-haiku-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": "go"}]},
        {"x-api-key": KEY},
    ),
    (
        "openai",
        "/v1/chat/completions",
        {"model": "gpt-5-mini", "messages": [{"role": "user", "content": "go"}]},
        {"authorization": f"Bearer {KEY}"},
    ),
]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("provider,path,body,headers", CALLS)
def test_each_call_is_metered_priced_and_sent_with_the_real_key(replay, provider, path, body, headers, stream):
    _, server, reports = _proxy(replay, provider=provider, upstream_key=REAL_KEY, simulated=True)
    try:
        response = httpx.post(server.url + path, json=body | {"stream": stream}, headers=headers)
    finally:
        server.stop()
    assert response.status_code == 200
    [report] = reports
    [call] = replay.calls()
    assert report.usage is not None and report.usage.total_tokens == call.input_tokens + call.output_tokens
    assert report.cost_cents > 0 and report.simulated and report.price_table == price_table().version
    assert call.key == REAL_KEY, "upstream sees the real key, never the throwaway one"


def test_a_wrong_key_is_refused_before_upstream(replay):
    _, server, reports = _proxy(replay)
    try:
        response = httpx.post(
            server.url + "/v1/chat/completions",
            json={"model": "gpt-5-mini", "messages": []},
            headers={"authorization": "Bearer guess"},
        )
    finally:
        server.stop()
    assert response.status_code == 401 and not replay.calls() and not reports


def test_an_unpriced_model_is_refused_before_upstream(replay):
    _, server, reports = _proxy(replay)
    try:
        response = httpx.post(
            server.url + "/v1/chat/completions",
            json={"model": "mystery", "messages": []},
            headers={"authorization": f"Bearer {KEY}"},
        )
    finally:
        server.stop()
    assert response.status_code == 402 and not replay.calls()
    assert "cannot price" in reports[0].refused


def test_after_the_budget_is_passed_every_call_is_refused_and_nothing_reaches_upstream(replay):
    proxy, server, reports = _proxy(replay, upstream=replay.url + "/scripts/over-budget", budget_cents=1)
    body = {
        "model": "gpt-5-codex",
        "input": [],
        "stream": True,
        "tools": [{"type": "function", "name": "exec_command"}],
    }
    try:
        statuses = [
            httpx.post(server.url + "/v1/responses", json=body, headers={"authorization": f"Bearer {KEY}"}).status_code
            for _ in range(3)
        ]
    finally:
        server.stop()
    assert statuses == [200, 402, 402]
    assert len(replay.calls()) == 1
    assert proxy.budget.exceeded and reports[0].spent_cents > 1
    assert [bool(report.refused) for report in reports] == [False, True, True]


def test_a_streamed_chat_call_is_made_to_carry_its_usage(replay):
    _, server, reports = _proxy(replay)
    try:
        httpx.post(
            server.url + "/v1/chat/completions",
            json={"model": "gpt-5-mini", "stream": True, "messages": []},
            headers={"authorization": f"Bearer {KEY}"},
        )
    finally:
        server.stop()
    assert replay.calls()[0].include_usage is True and reports[0].usage and not reports[0].usage_estimated


def test_token_counting_is_forwarded_but_never_priced(replay):
    _, server, reports = _proxy(replay, provider="anthropic")
    try:
        answer = httpx.post(server.url + "/v1/messages/count_tokens", json={"model": "m"}, headers={"x-api-key": KEY})
    finally:
        server.stop()
    assert answer.json()["input_tokens"] > 0 and not reports


def test_an_answered_call_without_usage_is_charged_its_estimate_and_a_failed_one_nothing():
    reports: list[CallReport] = []
    proxy = MeteringProxy(ProxyConfig(upstream="http://127.0.0.1:9", provider="openai", client_key=KEY), reports.append)
    proxy._report("chat", "gpt-5-mini", 200, None, estimate=Usage(input_tokens=4000))
    proxy._report("chat", "gpt-5-mini", 500, None, estimate=Usage(input_tokens=4000))
    assert proxy.budget.spent_cents == pytest.approx(0.1)
    assert [report.usage_estimated for report in reports] == [True, False]


def test_a_call_is_admitted_before_anything_reaches_upstream_and_completed_under_the_same_id(replay):
    admitted: list[CallReport] = []
    reached_upstream_at_admission: list[int] = []

    def admit(report: CallReport) -> None:
        reached_upstream_at_admission.append(len(replay.calls()))
        admitted.append(report)

    _, server, completed = _proxy(replay, admit, provider="anthropic", simulated=True)
    _, path, body, headers = CALLS[1]
    try:
        for stream in (False, True):
            assert httpx.post(server.url + path, json=body | {"stream": stream}, headers=headers).status_code == 200
    finally:
        server.stop()
    assert reached_upstream_at_admission == [0, 1], "a call reached upstream before the product recorded it"
    assert [r.in_flight for r in admitted] == [True, True] and not any(r.in_flight for r in completed)
    assert [r.call_id for r in admitted] == [r.call_id for r in completed] and len({r.call_id for r in admitted}) == 2
    assert all(r.usage_estimated and r.cost_cents > 0 and r.status == 0 for r in admitted)
    assert all(r.status == 200 and not r.usage_estimated and r.cost_cents > 0 for r in completed)


def test_a_call_the_product_refuses_to_record_is_refused_and_never_forwarded(replay):
    def refuse(report: CallReport) -> None:
        raise CallNotAdmitted("run 7 is cancelled; it can no longer act")

    _, server, reports = _proxy(replay, refuse, provider="anthropic")
    _, path, body, headers = CALLS[1]
    try:
        answer = httpx.post(server.url + path, json=body | {"stream": True}, headers=headers)
    finally:
        server.stop()
    assert answer.status_code == 402 and answer.json()["error"]["type"] == "billing_error"
    assert "can no longer act" in answer.json()["error"]["message"]
    assert not replay.calls() and not reports


def test_an_admitted_call_the_upstream_never_answers_is_completed_as_failed_and_charged_nothing(replay):
    admitted: list[CallReport] = []
    _, server, completed = _proxy(replay, admitted.append, upstream="http://127.0.0.1:9", provider="anthropic")
    _, path, body, headers = CALLS[1]
    try:
        answer = httpx.post(server.url + path, json=body, headers=headers)
    finally:
        server.stop()
    assert answer.status_code == 502 and "upstream failed" in answer.text
    [call] = completed
    assert call.call_id == admitted[0].call_id and call.status == 502 and call.cost_cents == 0
