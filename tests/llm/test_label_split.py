"""label_many splits a batch before sending when the backend says its answer could not fit."""

from __future__ import annotations

from voxjudge.llm import Item, Judge, Task, label_many
from voxjudge.llm.grammar import AnswerTooLong, answer_grammar

SCHEMA = {"type": "object", "properties": {"tier": {"enum": ["minor", "major"]}}, "required": ["tier"]}


def test_batches_whose_answer_cannot_fit_are_halved_before_sending(tmp_path):
    judge = Judge("fake/schema", cache=None)
    sent: list[int] = []
    budget = 100  # tokens: the worst-case answer of two items (90) fits, of three (127) does not

    def fits(request):
        try:
            answer_grammar(request.schema, budget)
        except AnswerTooLong:
            return False
        sent.append(len(request.schema["properties"]["items"]["items"]["properties"]["id"]["enum"]))
        return True

    judge.backend.answer_fits = fits
    task = Task("split-test", "Grade.", "Pairs:\n$items", SCHEMA, batch_size=5)
    items = [Item(f"p{k}", {"ref": "cat", "hyp": "bat"}) for k in range(5)]
    outcome = judge.run(label_many(judge, task, items))
    judge.close()
    assert outcome.unscored == {} and set(outcome.answers) == {f"p{k}" for k in range(5)}
    # 5 -> 2 + 3 -> 2 + (1 + 2): three requests, two splits, no request over budget
    assert outcome.split == 2 and sent == [2, 2] and judge.meter.requests == 3
    assert outcome.as_dict()["split"] == outcome.split
