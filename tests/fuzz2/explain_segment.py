"""Mark corpus entries whose TensorFlow v1 answer is KNOWN.md's "refuses a well-defined gradient" class.

    python tests/fuzz2/explain_segment.py      # after record2.py; no TensorFlow needed

TensorFlow 2.21's v1 gradient of a gather in a while_loop that ran zero times raises "segment_ids[0] = 0 is out of
range [0, 0)"; its v2 gradient of the same program answers. For those entries the corpus gets an "explained" field:
{"v1": {"why": ..., "answer": TensorFlow's v2 answer without the v2-only second-order key}}, and the corpus test
compares cfnb's v1 paths with that answer instead of the refusal.
"""
import json
import pathlib

CORPUS = pathlib.Path(__file__).parent / "corpus2_tf.json"
REFUSAL = "segment_ids[0] = 0 is out of range [0, 0)"
WHY = ("TensorFlow v1 refuses a well-defined gradient (a gather's gradient accumulated over a loop that ran zero "
       "times: " + REFUSAL + "); TensorFlow v2 answers it: see tests/fuzz2/KNOWN.md")


def main():
    text = CORPUS.read_text()
    head, body = text.split('"programs":[\n', 1)
    lines = body.rstrip().removesuffix("]}").rstrip().split(",\n")
    entries = [json.loads(line) for line in lines]
    marked = 0
    for e in entries:
        if REFUSAL in e["v1"].get("error", "") and "error" not in e["v2"]:
            answer = {k: v for k, v in e["v2"].items() if k != "grad2_x"}
            e["explained"] = {"v1": {"why": WHY, "answer": answer}}
            marked += 1
    CORPUS.write_text(head + '"programs":[\n' + ",\n".join(json.dumps(e, separators=(",", ":")) for e in entries)
                      + "\n]}\n")
    print(f"{marked} entries explained")


if __name__ == "__main__":
    main()
