"""Write the battle fixtures of tests/test_arena_formats.py, each in the
layout its source documents (docs/arena.md, *Formats*), from one list of
battles (``CANON``), which ``expected.json`` records as (model_a, model_b,
result of model_a) for the tests.

- ``lmarena_clean_battle.json``: FastChat's ``clean_battle_*.json`` (the
  battles LMArena's elo_analysis.py reads; fastchat/serve/monitor/
  clean_battle_data.py): a JSON array of objects with question_id,
  model_a, model_b, winner (model_a, model_b, tie, tie (bothbad)), judge,
  turn, anony, language, tstamp and conv_metadata (sum_assistant_a_tokens,
  header_count_a {h1..h6}, list_count_a {ordered, unordered}, bold_count_a
  {"**", "__"}, and the _b fields).
- ``lmarena_140k.parquet``: the arena-human-preference-140k release
  (arena-rank's example reads it): id, model_a, model_b, winner (model_a,
  model_b, tie, both_bad), conv_metadata as a struct, category_tag,
  language.
- ``lmarena_55k.csv``: the 55k release's one-hot columns winner_model_a,
  winner_model_b, winner_tie.
- ``arena_hard/model_judgment/judge/*.jsonl``: arena-hard-auto's
  judgments (gen_judgment.py): uid, category, judge, model, baseline and
  two games with a verdict ``score`` (A>>B ... B>>A); the first game has
  the baseline as assistant A. Its show_result.py counts a strong verdict
  three times; ``expected_arena_hard.json`` lists those battles.
- ``people.csv``: header spellings people use (``Model A``, ``Model B``,
  ``Outcome`` with A/B/tie); ``numeric.tsv``: 1/0/0.5 in ``result``.

Usage: ``python tests/data/arena/make_fixtures.py`` (needs pyarrow).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

HERE = Path(__file__).parent
MODELS = ["gpt-4o-2024-05-13", "claude-3-5-sonnet-20240620", "llama-3-70b-instruct", "gemma-2-9b-it"]
# (a, b, result of a): every pair both ways, with ties
CANON = [
    (0, 1, 1.0), (1, 0, 0.5), (0, 2, 1.0), (2, 0, 0.0), (0, 3, 1.0), (1, 2, 1.0), (2, 1, 0.5), (1, 3, 0.0),
    (3, 1, 0.0), (2, 3, 1.0), (3, 2, 1.0), (0, 1, 0.0), (2, 3, 0.5), (3, 0, 1.0), (1, 2, 0.0), (0, 2, 0.5),
]
WORD = {1.0: "model_a", 0.0: "model_b", 0.5: "tie"}


def meta(k: int) -> dict[str, object]:
    return {"sum_user_tokens": 10 + k, "sum_assistant_a_tokens": 100 + 7 * k, "sum_assistant_b_tokens": 90 + 11 * k,
            "context_a_tokens": 5, "context_b_tokens": 5, "turns": 1,
            "header_count_a": {f"h{i}": (k + i) % 3 for i in range(1, 7)},
            "header_count_b": {f"h{i}": (k * i) % 2 for i in range(1, 7)},
            "list_count_a": {"ordered": k % 4, "unordered": (k + 1) % 3},
            "list_count_b": {"ordered": (k + 2) % 4, "unordered": k % 2},
            "bold_count_a": {"**": k % 5, "__": 0}, "bold_count_b": {"**": (k + 3) % 5, "__": 1}}


def main() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = []
    for k, (a, b, y) in enumerate(CANON):
        word = WORD[y]
        if y == 0.5 and k % 2:
            word = "tie (bothbad)"
        rows.append({"question_id": f"q{k // 2:03d}", "model_a": MODELS[a], "model_b": MODELS[b], "winner": word,
                     "judge": f"arena_user_{k}", "turn": 1, "anony": True, "language": "English",
                     "tstamp": 1_720_000_000.0 + k, "conv_metadata": meta(k)})
    (HERE / "lmarena_clean_battle.json").write_text(json.dumps(rows, indent=1) + "\n")
    t = pa.Table.from_pylist([{"id": f"battle-{k}", "model_a": r["model_a"], "model_b": r["model_b"],
                               "winner": "both_bad" if r["winner"] == "tie (bothbad)" else r["winner"],
                               "conv_metadata": r["conv_metadata"], "category_tag": {"is_code": k % 3 == 0},
                               "language": "en"} for k, r in enumerate(rows)])
    pq.write_table(t, HERE / "lmarena_140k.parquet")
    with open(HERE / "lmarena_55k.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "model_a", "model_b", "prompt", "response_a", "response_b", "winner_model_a",
                    "winner_model_b", "winner_tie"])
        for k, (a, b, y) in enumerate(CANON):
            w.writerow([k, MODELS[a], MODELS[b], '["hi"]', '["a"]', '["b"]', int(y == 1.0), int(y == 0.0),
                        int(y == 0.5)])
    with open(HERE / "people.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Model A", "Model B", "Outcome"])
        for a, b, y in CANON:
            w.writerow([MODELS[a], MODELS[b], {1.0: "A", 0.0: "B", 0.5: "tie"}[y]])
    with open(HERE / "numeric.tsv", "w", newline="") as fh:
        fh.write("left_model\tright_model\tresult\n")
        for a, b, y in CANON:
            fh.write(f"{MODELS[a]}\t{MODELS[b]}\t{y:g}\n")
    # arena-hard-auto: each model against the baseline on 3 prompts, two games each
    judge = HERE / "arena_hard" / "model_judgment" / "gpt-4.1"
    judge.mkdir(parents=True, exist_ok=True)
    verdicts = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]
    expected_hard = []
    for m, model in enumerate(MODELS[1:]):
        with open(judge / f"{model}.jsonl", "w") as fh:
            for q in range(3):
                games = []
                for g in range(2):
                    label = verdicts[(m + 2 * q + g) % 5]
                    games.append({"score": label, "judgment": {"answer": f"My final verdict: [[{label}]]"},
                                  "prompt": [{"role": "user", "content": "..."}]})
                    first, second = (MODELS[0], model) if g == 0 else (model, MODELS[0])
                    res, times = {"A>>B": (1.0, 3), "A>B": (1.0, 1), "A=B": (0.5, 1), "B>A": (0.0, 1),
                                  "B>>A": (0.0, 3)}[label]
                    expected_hard += [(first, second, res, f"u{q}")] * times
                fh.write(json.dumps({"uid": f"u{q}", "category": "hard_prompt", "judge": "gpt-4.1", "model": model,
                                     "baseline": MODELS[0], "games": games}) + "\n")
    (HERE / "expected.json").write_text(json.dumps({
        "battles": [[MODELS[a], MODELS[b], y] for a, b, y in CANON],
        "arena_hard": [list(x) for x in expected_hard]}, indent=1) + "\n")


if __name__ == "__main__":
    main()
