"""Text a terminal, a log collector or a web page changed on its way into a paste (trial 145): what they added is taken
off and said, and the objects read are those of the same text as kubectl printed it."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from rules.reader import Dump, parse_bytes, parse_text

DESCRIBE = (Path(__file__).parent / "data" / "describe" / "kubevirt-11135_vgpu-node_grid-p40-1q.txt").read_text()
NODE_YAML = (
    "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n  labels:\n    nvidia.com/gpu.workload.config: vm-passthrough\n"
    "status:\n  allocatable:\n    cpu: '8'\n    nvidia.com/TU104GL_Tesla_T4: '1'\n"
)
#: The coloured prompt of a bash shell (Debian's PS1), as it is in a terminal's text.
COLOURED_PROMPT = "\x1b[01;32mroot@gpu-1\x1b[00m:\x1b[01;34m~\x1b[00m# "


def read(dump: Dump) -> list[tuple[str, int, dict]]:
    """What a dump holds that a report shows: each object, with its line."""
    return [(o.name, o.source.line, o.obj) for o in dump.objects]


def kubecolor(text: str) -> str:
    """Describe text as kubecolor prints it: each key yellow."""
    return re.sub(r"(?m)^([ \t]*)([A-Za-z][\w ./-]*:)", "\\1\x1b[33m\\2\x1b[0m", text)


def jq_colour(text: str) -> str:
    """JSON as ``jq -C`` prints it: brackets bold, keys blue, string values green."""

    def colour(m: re.Match[str]) -> str:
        token = m.group()
        if token in "{}[]":
            return f"\x1b[1;39m{token}\x1b[0m"
        return f"\x1b[34;1m{token}\x1b[0m" if m.group("key") is not None else f"\x1b[0;32m{token}\x1b[0m"

    return re.sub(r'"(?:[^"\\]|\\.)*"(?P<key>(?=\s*:))?|[{}\[\]]', colour, text)


def test_kubecolor_describe_text_reads_as_the_plain_text() -> None:
    """Trial 145: kubecolor's describe text (each key coloured) was "YAML error: character U+001B" and lost its node."""
    plain = parse_text(f"$ kubectl describe node vgpu-node-1\n{DESCRIBE}", "plain.txt")
    coloured = parse_text(f"{COLOURED_PROMPT}kubectl describe node vgpu-node-1\n{kubecolor(DESCRIBE)}", "kubecolor.txt")
    assert [o.name for o in plain.objects][:2] == ["vgpu-node-1", "virt-launcher-vmi-vgpu-p4mzq"]
    assert read(coloured) == read(plain) and coloured.errors == plain.errors == []
    lines = 1 + sum(1 for line in DESCRIBE.splitlines() if re.match(r"[ \t]*[A-Za-z][\w ./-]*:", line))
    assert coloured.notes[0] == (
        f"kubecolor.txt: ANSI escape sequences (terminal colours, as kubecolor, jq -C or a coloured prompt write them)"
        f" taken out of {lines} lines before reading"
    )
    assert coloured.notes[1:] == [n.replace("plain.txt", "kubecolor.txt") for n in plain.notes]


def test_a_coloured_prompt_in_a_code_fence_is_set_aside_as_a_prompt() -> None:
    """Trial 145: inside a fence, a coloured prompt was no prompt line, and the whole block was set aside ("none of its
    1 Markdown code block starts as a dump"); without a fence the same paste was read."""
    text = f"My node:\n```\n{COLOURED_PROMPT}kubectl get node gpu-1 -o yaml\n{NODE_YAML}```\n"
    dump = parse_text(text, "issue.md")
    assert dump.errors == []
    assert read(dump) == read(parse_text(text.replace(COLOURED_PROMPT, "$ "), "issue.md"))
    assert [(o.name, o.source.line) for o in dump.objects] == [("gpu-1", 4)]
    assert dump.notes == [
        "issue.md: ANSI escape sequences (terminal colours, as kubecolor, jq -C or a coloured prompt write them) taken"
        " out of 1 line before reading",
        "issue.md: read inside its fenced Markdown code blocks; set aside: 1 line of text around them and 1 prompt line",
    ]


def test_jq_colour_json_reads_as_the_plain_json() -> None:
    """JSON that ``jq -C`` coloured, from its bytes (the JSON parser tried first where it starts with ``{``, as after a
    reset sequence), reads as the plain JSON; an escaped ESC in a value (``\\u001b``) is a value, kept as it is."""
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "gpu-1", "annotations": {"motd": "\x1b[31mred\x1b[0m"}},
        "status": {"allocatable": {"nvidia.com/gpu": "4"}},
    }
    plain = json.dumps(node, indent=2)
    assert "\\u001b[31m" in plain
    expected = read(parse_bytes(plain.encode(), "plain.json"))
    assert expected[0][2]["metadata"]["annotations"]["motd"] == "\x1b[31mred\x1b[0m"
    for coloured in (jq_colour(plain), "{" + jq_colour(plain)[len("\x1b[1;39m{") :]):
        dump = parse_bytes(coloured.encode(), "jq.json")
        assert read(dump) == expected and dump.errors == []
        assert dump.notes[0].startswith("jq.json: ANSI escape sequences (terminal colours")
    # no raw ESC, no note: the escaped one is left to JSON
    assert parse_bytes(plain.encode(), "plain.json").notes == []


def stamp(text: str, stamps: list[str]) -> str:
    """``text`` with a timestamp before each line (the stamps in turn), as a log collector writes it."""
    return "\n".join(f"{stamps[i % len(stamps)]} {line}" if line else line for i, line in enumerate(text.split("\n")))


def test_a_log_collector_s_timestamp_column_in_a_code_fence_is_taken_off() -> None:
    """Trial 145: describe text copied from a GitHub Actions log, a timestamp before each line, in a code fence was set
    aside ("none of its 1 Markdown code block starts as a dump"). Loki writes as many digits of the second as it
    needs: the same shape all the same."""
    stamps = ["2024-09-06T08:14:03.1234567Z", "2024-09-06T08:14:03.12345Z", "2024-09-06T08:14:04.9Z"]
    block = f"$ kubectl describe node vgpu-node-1\n{DESCRIBE}"
    plain = parse_text(f"From the CI job:\n```\n{block}```\nThanks\n", "issue.md")
    dump = parse_text(f"From the CI job:\n```\n{stamp(block, stamps)}```\nThanks\n", "issue.md")
    assert [o.name for o in plain.objects][:1] == ["vgpu-node-1"] and plain.errors == []
    assert read(dump) == read(plain) and dump.errors == []
    lines = sum(1 for line in block.split("\n") if line)
    assert dump.notes == [
        f"issue.md: a timestamp before each line ('2024-09-06T08:14:03.1234567Z', as a log collector such as GitHub"
        f" Actions, Loki or kubectl logs --timestamps writes one) taken off {lines} lines before reading",
        *plain.notes,
    ]


def test_a_bracketed_timestamp_column_is_not_read_as_a_json_list() -> None:
    """Trial 145: with ``[2024-09-06 08:14:03]`` before each line, describe text was read as a JSON List ("not a
    Kubernetes object: a number"); YAML with an RFC 3339 offset before each line is read as well."""
    text = f"$ kubectl describe node vgpu-node-1\n{DESCRIBE}"
    dump = parse_bytes(stamp(text, ["[2024-09-06 08:14:03]"]).encode(), "ci.log")
    assert read(dump) == read(parse_bytes(text.encode(), "ci.log")) and dump.errors == []
    assert dump.notes[0].startswith("ci.log: a timestamp before each line ('[2024-09-06 08:14:03]', as a log collector")
    yaml_dump = parse_bytes(stamp(NODE_YAML, ["2024-09-06T10:14:03+02:00"]).encode(), "node.log")
    assert read(yaml_dump) == read(parse_text(NODE_YAML, "node.log")) and yaml_dump.errors == []
    assert yaml_dump.notes == [
        "node.log: a timestamp before each line ('2024-09-06T10:14:03+02:00', as a log collector such as GitHub Actions,"
        " Loki or kubectl logs --timestamps writes one) taken off 10 lines before reading"
    ]


def test_timestamps_not_on_every_line_stay_and_the_error_says_they_are_there() -> None:
    """Where a line lacks the timestamp the column is not taken off (it might not be one), and the input error says
    that the lines carry one rather than leave "a number" alone (trial 145)."""
    lines = stamp(f"$ kubectl describe node vgpu-node-1\n{DESCRIBE}", ["[2024-09-06 08:14:03]"]).split("\n")
    lines[4] = lines[4].removeprefix("[2024-09-06 08:14:03] ")
    dump = parse_text("\n".join(lines), "ci.log")
    assert dump.objects == [] and dump.errors
    written = sum(1 for line in lines if line.strip())
    assert dump.errors[0].reason == (
        f"not a Kubernetes object: a number ({written - 1} of its {written} lines start with a timestamp, such as"
        " '[2024-09-06 08:14:03]', as a log collector writes one: take that column off before pasting)"
    )
    # timestamps as values, or on some lines of a block only, are no column: no note
    node = NODE_YAML.replace("metadata:\n", "metadata:\n  creationTimestamp: 2024-09-06T08:14:03Z\n")
    for text in (node, f"```\n2024-09-06T08:14:03Z started\n{node}```\n"):
        assert not any("timestamp before each line" in n for n in parse_text(text, "n.md").notes)


#: The first line of GNOME Terminal's "copy as HTML": its coloured prompt, in tags.
HTML_PROMPT = (
    '<pre><font color="#8AE234"><b>user@user-desktop</b></font>:<font color="#729FCF"><b>~</b></font>$ kubectl describe nodes \n'
)


def test_a_terminal_s_copy_as_html_of_describe_text_reads_as_the_text() -> None:
    """Trial 145: describe text a terminal copied as HTML (``<pre><font ...>``, ``Taints: &lt;none&gt;``) lost its node,
    and the input error said Slack's Events API had escaped it."""
    plain = parse_text(f"$ kubectl describe nodes\n{DESCRIBE}", "plain.txt")
    text = f"{HTML_PROMPT}{html.escape(DESCRIBE, quote=False)}</pre>\n"
    assert "Taints:             &lt;none&gt;" in text
    dump = parse_text(text, "k3ai.txt")
    assert read(dump) == read(plain) and dump.errors == []
    assert dump.notes == [
        "k3ai.txt: read as the text of a terminal's copy as HTML: its tags (<pre>, <font>) set aside, and &lt;, &gt; and"
        " &amp; read as the <, > and & they stand for",
        *(n.replace("plain.txt", "k3ai.txt") for n in plain.notes),
    ]


def test_text_html_escaped_as_a_whole_reads_as_the_text() -> None:
    """Describe text as Slack's Events API gives a message's text (``&lt;``, ``&gt;``, ``&amp;``, no tag) is read with
    its escapes undone, as it does not read as it is and no raw < or > shows that an escape is a value's own."""
    plain = parse_text(DESCRIBE, "plain.txt")
    dump = parse_text(html.escape(DESCRIBE, quote=False), "slack.txt")
    assert read(dump) == read(plain) and dump.errors == []
    assert dump.notes[0] == (
        "slack.txt: read with &lt;, &gt; and &amp; as the <, > and & they stand for: the text was HTML-escaped as a whole"
        " (by a chat's API such as Slack's Events API, a terminal's copy as HTML, or a web page)"
    )


def test_escaped_describe_text_cut_short_reads_its_node() -> None:
    """Trial 230 #3: describe text HTML-escaped as a whole and cut after its System Info was refused ("taint
    '&lt;none&gt;' is not key[=value]:Effect"), while the same cut 10 lines later was read: undone, it read the node
    with one error (cut short), as many as read as it was, and more objects read did not count."""
    cut = "".join(DESCRIBE.splitlines(keepends=True)[:74])
    plain = parse_text(cut, "plain.txt")
    assert [o.name for o in plain.objects] == ["vgpu-node-1"] and len(plain.errors) == 1
    dump = parse_text(html.escape(cut, quote=False), "slack.txt")
    assert read(dump) == read(plain)
    assert [e.reason for e in dump.errors] == [e.reason for e in plain.errors]
    assert "(cut short?)" in dump.errors[0].reason
    assert dump.notes[0].startswith("slack.txt: read with &lt;, &gt; and &amp; as the <, > and & they stand for")


def test_undoing_escapes_never_loses_an_object_read_as_it_was() -> None:
    """Trial 231 #8 (after trial 230 #3): a Node whose own annotation held "&quot;", then a List written escaped, was
    read undone for the List's two ConfigMaps, and the Node, lost to its quotes, went unjudged. More objects read
    undone wins only where every object read as it was is read too."""
    node = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-a\n  annotations:\n"
        '    team/banner: "GPU node &quot;A&quot; &amp; friends"\nstatus:\n  allocatable: {cpu: "8"}\n'
    )
    items = json.dumps([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": n}} for n in ("c1", "c2")])
    listed = html.escape(f'{{"apiVersion": "v1", "kind": "List", "items": {items}}}\n', quote=True)
    dump = parse_text(f"{node}---\n{listed}", "esc.yaml")
    assert [(o.kind, o.name) for o in dump.objects] == [("Node", "gpu-a")]
    assert dump.objects[0].obj["metadata"]["annotations"] == {"team/banner": "GPU node &quot;A&quot; &amp; friends"}
    assert len(dump.errors) == 1 and not any("HTML-escaped as a whole" in n for n in dump.notes)


def test_escapes_that_may_be_a_value_s_own_are_left() -> None:
    """An escape is left as it is where the text reads as it is (an annotation that holds "&lt;b&gt;"), where the text
    also holds a raw < or >, or beside another character reference (``&nbsp;``): the text does not show it was escaped
    as a whole."""
    holds = NODE_YAML.replace("  labels:\n", "  annotations:\n    note: '&lt;b&gt; &amp; more'\n  labels:\n")
    dump = parse_text(holds, "n.yaml")
    assert dump.errors == [] and dump.notes == []
    assert dump.objects[0].obj["metadata"]["annotations"] == {"note": "&lt;b&gt; &amp; more"}
    raw = DESCRIBE.replace("Taints:             <none>", "Taints:             &lt;none&gt;")
    assert "<none>" in raw
    for text in (raw, html.escape(DESCRIBE, quote=False).replace("Roles:", "Roles:&nbsp;")):
        dump = parse_text(text, "s.txt")
        assert dump.errors and not any("HTML-escaped" in n for n in dump.notes)
        assert dump.errors[0].reason.endswith(
            "(&lt;, &gt; and &amp; are how HTML writes <, > and &, as a chat's API such as Slack's Events API, a terminal's"
            " copy as HTML or a web page gives text: undo them before posting)"
        )


def test_a_value_github_turned_into_a_markdown_link_is_named_in_the_yaml_error() -> None:
    """Trial 145 (kubevirt/kubevirt#7547): YAML pasted into an issue without a fence, where GitHub's editor had made the
    resource name a link, gave a bare "YAML syntax error: did not find expected key"."""
    text = (
        "Insufficient [nvidia.com/TU104GL_Tesla_T4](http://nvidia.com/TU104GL_Tesla_T4)\n\n"
        "Kubevirt CR contains the following elements :\n"
        "spec:\n"
        "    permittedHostDevices:\n"
        "      pciHostDevices:\n"
        "      - pciVendorSelector: 10de:1eb8\n"
        "        resourceName: [nvidia.com/TU104GL_Tesla_T4](http://nvidia.com/TU104GL_Tesla_T4)\n"
    )
    [err] = parse_text(text, "issue.md").errors
    assert (err.source.line, err.reason) == (
        8,
        "YAML syntax error: did not find expected key (while parsing a block mapping that starts at line 7, column 9)"
        " (line 8 holds a Markdown link, [nvidia.com/TU104GL_Tesla_T4](http://nvidia.com/TU104GL_Tesla_T4): GitHub may"
        " have turned the text into a link; write the value as it was, and paste YAML in a code block)",
    )
    # the link only in the text before the dump: the error's own line holds none, and it is said as it was
    plain = "        resourceName: nvidia.com/TU104GL_Tesla_T4\n     externalResourceProvider: true\n"
    [err] = parse_text(text.replace(text.split("\n")[7] + "\n", plain), "issue.md").errors
    assert "http://" in text.split("\n")[0] and err.source.line == 9 and "Markdown link" not in err.reason


def test_coloured_json_on_one_line_reads_as_the_plain_json() -> None:
    """Trial 148: ``jq -C -c`` writes a whole List on one line; the count of coloured lines searched back to the line's
    start for every escape sequence (46 s for 5.6 MB). Counted as it goes: the same objects, one coloured line."""
    items = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}} for i in range(2000)]
    plain = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, separators=(",", ":"))
    coloured = re.sub(r'"[^"]*"', lambda m: f"\x1b[0;32m{m.group()}\x1b[0m", plain)
    assert coloured.count("\x1b") > 20000 and "\n" not in coloured
    dump = parse_bytes(coloured.encode(), "one-line.json")
    assert read(dump) == read(parse_bytes(plain.encode(), "one-line.json")) and dump.errors == []
    assert dump.notes[0].endswith("taken out of 1 line before reading")


def test_a_value_holding_html_in_pre_is_kept_where_the_text_reads_as_it_is() -> None:
    """Trial 148: a ConfigMap whose value held HTML inside <pre> was taken for a terminal's copy as HTML: its tags were
    set aside and its escapes undone, though the YAML read as it is."""
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: motd, namespace: ops}\n"
        'data: {motd: "<pre>R&amp;D GPU lab &lt;gpu-admins@example.com&gt;</pre>"}\n'
    )
    dump = parse_text(text, "cm.yaml")
    assert dump.errors == [] and dump.notes == []
    assert dump.objects[0].obj["data"]["motd"] == "<pre>R&amp;D GPU lab &lt;gpu-admins@example.com&gt;</pre>"


def test_a_container_s_resource_map_is_not_called_a_node_s() -> None:
    """Trial 148: a container's resources.limits printed alone (no pods: a node's allocatable always lists them) was
    called "a node's resources map"."""
    [error] = parse_bytes(b'{"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"}', "limits.json").errors
    assert error.reason.startswith("not a Kubernetes object: a map of resource names to quantities (a container's")
    [error] = parse_bytes(b'{"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "1"}', "a.json").errors
    assert error.reason.startswith("not a Kubernetes object: a node's resources map")


def test_a_link_inside_a_quoted_value_is_not_named_for_an_error_beside_it() -> None:
    """Trial 148: a quoted annotation holding a Markdown link was named in the YAML error of a tab on the next line."""
    text = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n  annotations:\n"
        '    docs: "See [runbook](https://wiki.example.com/gpu)"\n\towner: ops\n'
    )
    [error] = parse_text(text, "n.yaml").errors
    assert error.source.line == 7 and "Markdown link" not in error.reason


def test_a_terminal_s_copy_as_html_that_parses_as_it_is_is_still_read_unwrapped() -> None:
    """Trial 150: a <pre>-wrapped copy that parsed as it was lost its first line's apiVersion ("<pre>apiVersion: ...")
    and kept "</pre>" and "&amp;" in its values; one without an escape was read so too."""
    policy = (
        "<pre>apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: cluster-policy\n"
        "  annotations: {note: R&amp;D}\nspec:\n  sandboxWorkloads: {enabled: true}</pre>\n"
    )
    for text in (policy, policy.replace("R&amp;D", "RD")):
        dump = parse_text(text, "cp.txt")
        [obj] = dump.objects
        assert obj.obj["apiVersion"] == "nvidia.com/v1" and obj.obj["spec"] == {"sandboxWorkloads": {"enabled": True}}
        assert obj.obj["metadata"]["annotations"]["note"] in ("R&D", "RD")
        assert dump.notes[0].startswith("cp.txt: read as the text of a terminal's copy as HTML")


def quote(text: str) -> str:
    """``text`` as a chat quotes it: ``> `` before each line (``>`` alone on a blank one)."""
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def test_a_quoted_paste_reads_as_the_text_it_quotes() -> None:
    """Regression (trial 171): describe text, YAML and a fenced block quoted in Slack ("> " before each line), and a
    Matrix reply's fallback ("> <@alice:example.org> ```" then the bot's own line), were refused as YAML syntax errors
    at line 1 with no word of the quote. Read as the text they quote, with their lines, and said once."""
    plain = parse_text(DESCRIBE, "node.txt")
    quoted = parse_text(quote(DESCRIBE), "chat.txt")
    assert quoted.errors == [] and read(quoted) == read(plain)
    assert quoted.notes[0] == (
        "chat.txt: read as a quoted message: the quote marker ('> ', as a chat client writes a quote or a reply) taken"
        f" off {quote(DESCRIBE).count(chr(10)) + 1} lines before reading"
    )
    assert read(parse_text(quote(NODE_YAML), "q.yaml")) == read(parse_text(NODE_YAML, "n.yaml"))
    # HTML-escaped as Slack's Events API gives it
    assert read(parse_text(html.escape(quote(NODE_YAML), quote=False), "q.txt")) == read(parse_text(NODE_YAML, "n.yaml"))
    matrix = quote("<@alice:example.org> ```\n$ kubectl get node gpu-1 -o yaml\n" + NODE_YAML + "```") + "\n\n@verdict check this"
    dump = parse_text(matrix, "m.txt")
    assert dump.errors == [] and [(o.name, o.source.line) for o in dump.objects] == [("gpu-1", 3)]
    # a line that starts with ">" is never a dump's own: one that does not start with a quote is read as it is
    assert parse_text("kind: Node\nmetadata:\n  name: a\n  annotations:\n    note: >\n      folded\n", "f.yaml").notes == []


def test_a_quote_with_the_replys_own_text_around_it_reads_the_quote() -> None:
    """Regression (trial 172): "> "-quoted node YAML, a blank line, then "can you check this one?" (a reply's layout)
    was "cut short? (Node gpu-1, not read)"; prose before the quote left it unread; a quote of a quote said its note
    twice. The quoted lines are the dump, the reply's own lines are set aside and counted; a line of the reply that
    starts a dump of its own keeps the whole text as it is but for the markers."""
    plain = read(parse_text(NODE_YAML, "n.yaml"))
    after = parse_text(quote(NODE_YAML.rstrip("\n")) + "\n\ncan you check this one?\n", "a.txt")
    assert (after.errors, read(after)) == ([], plain)
    assert after.notes[0].endswith("before reading, and 1 line of the reply's own text around it set aside")
    before = parse_text("look at this one:\n" + quote(NODE_YAML.rstrip("\n")) + "\n", "b.txt")
    assert before.errors == [] and [(o.name, o.source.line) for o in before.objects] == [("gpu-1", 2)]
    nested = parse_text(quote(quote(NODE_YAML.rstrip("\n"))), "c.txt")
    assert read(nested) == plain and sum("quoted message" in n for n in nested.notes) == 1
    own = parse_text(quote(NODE_YAML.rstrip("\n")) + "\n---\n" + NODE_YAML.replace("gpu-1", "gpu-2"), "d.txt")
    assert [o.name for o in own.objects] == ["gpu-1", "gpu-2"]
