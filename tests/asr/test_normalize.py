from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxjudge.asr import get_normalizer, wer
from voxjudge.asr.lang.devanagari import fold
from voxjudge.asr.normalize import PRESETS, describe
from voxjudge.errors import InputError


def test_none_preset_is_identity():
    assert get_normalizer("none") is None
    assert get_normalizer(None) is None


def test_basic_removes_punctuation_but_keeps_word_internal_apostrophes():
    n = get_normalizer("basic")
    assert n("Hello, World! Don't  stop—now.") == "hello world don't stop now"
    assert n("‘quoted’ rock’n’roll") == "quoted rock’n’roll"
    assert n("हाँ। ठीक है?") == "हाँ ठीक है"


def test_steps_compose_and_presets_nest():
    n = get_normalizer("basic+devanagari")
    assert n.steps == (*PRESETS["basic"], "devanagari")
    assert get_normalizer("nfkc,casefold").steps == ("nfkc", "casefold")
    assert get_normalizer("nfkc+casefold")("Ｓtraße") == "strasse"


def test_unknown_step_is_an_input_error_that_lists_choices():
    with pytest.raises(InputError, match="unknown normalization 'shout'.*presets: none, basic"):
        get_normalizer("basic+shout")


def test_nfc_makes_composed_and_decomposed_forms_equal():
    assert wer("café", "cafe\u0301") == 1.0
    assert wer("café", "cafe\u0301", normalizer=get_normalizer("nfc")) == 0.0


def test_kaldi_nonwords_and_symbols():
    n = get_normalizer("strict")
    assert n("[noise] Hello <unk> €5 😀 world") == "hello 5 world"


def test_describe_lists_every_step():
    text = describe()
    assert all(name in text for name in ("basic", "devanagari", "punct", "whitespace"))


@pytest.mark.parametrize(
    "a, b",
    [
        ("सफ़र", "सफर"),  # nukta, decomposed
        ("\u095e", "\u092b"),  # precomposed फ़ vs फ
        ("माँ", "मां"),  # chandrabindu vs anusvara
        ("हिन्दी", "हिंदी"),  # dental nasal + virama before a dental stop
        ("सम्बन्ध", "संबंध"),
        ("गङ्गा", "गंगा"),
        ("कण्ठ", "कंठ"),
        ("चञ्चल", "चंचल"),
        ("क्\u200dष", "क्ष"),  # ZWJ
        ("क्\u200cष", "क्ष"),  # ZWNJ
        ("एक\u00a0दो", "एक दो"),  # NBSP
    ],
)
def test_devanagari_fold_merges_accepted_variants(a, b):
    assert fold(a) == fold(b)


def test_devanagari_fold_keeps_clusters_that_are_not_nasal_variants():
    assert fold("अन्य") == "अन्य"  # न् before य is not a panchamakshar case
    assert fold("जन्म") == "जन्म"
    assert fold("english text") == "english text"


@given(
    st.text(alphabet=st.characters(min_codepoint=0x0900, max_codepoint=0x097F) | st.sampled_from(" \u200c\u200d\u00a0"))
)
def test_devanagari_fold_is_idempotent(text):
    assert fold(fold(text)) == fold(text)


def test_hindi_preset_scores_spelling_variants_as_correct():
    n = get_normalizer("hindi")
    ref = "मैंने बाज़ार से सब्ज़ियाँ खरीदीं।"
    hyp = "मैंने बाजार से सब्जियां खरीदीं"
    assert wer(ref, hyp) == 0.6
    assert wer(ref, hyp, normalizer=n) == 0.0
    assert unicodedata.is_normalized("NFC", n(ref))


def test_arabic_preset_takes_tashkeel_hamza_seats_and_tatweel_off():
    from voxjudge.asr import compute_metrics
    from voxjudge.asr.normalize import get_normalizer

    arabic = get_normalizer("arabic")
    ref = ["أُرِيدُ الذَّهَابَ إلى المدرسة"]
    hyp = ["اريد الذهاب الى المدرســة."]
    assert compute_metrics(ref, hyp).summary()["wer"] == 1.0  # every word differs in its marks
    assert compute_metrics(ref, hyp, normalizer=arabic).summary()["wer"] == 0.0
    # a real error is still one
    assert compute_metrics(ref, ["اريد الذهاب الى البيت"], normalizer=arabic).summary()["wer"] == 0.25
