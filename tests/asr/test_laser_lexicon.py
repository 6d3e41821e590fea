"""The lexicon reads wordfreq's lists itself (without importing wordfreq, which costs more than
the list): it must give exactly what wordfreq gives, float for float, and nothing for a language
wordfreq lacks."""

import pytest
import wordfreq

from voxjudge.asr.laser.lexicon import _frequencies, _wordlists, is_known, zipf


def test_the_same_languages_as_wordfreq():
    assert set(_wordlists()) == set(wordfreq.available_languages())


@pytest.mark.parametrize("lang", ["en", "fr", "hi", "ar", "ja"])
def test_the_same_frequencies_as_wordfreq(lang):
    ours, theirs = _frequencies(lang), wordfreq.get_frequency_dict(lang)
    assert len(ours) == len(theirs) > 1000
    assert list(ours) == list(theirs)  # same words, same order
    assert all(ours[w].hex() == f.hex() for w, f in theirs.items())  # same floats, bit for bit


def test_a_language_wordfreq_lacks_knows_no_word():
    assert "ml" not in wordfreq.available_languages()
    assert _frequencies("ml") == {} and _frequencies("und") == {}
    assert zipf("the", "und") == 0.0 and not is_known("the", "und")


def test_zipf_is_wordfreqs():
    for word in ("the", "cat", "nucléaire", "zzzzqx"):
        assert zipf(word, "en") == pytest.approx(wordfreq.zipf_frequency(word, "en", minimum=0.0), abs=0.01)
    assert is_known("house", "en") and not is_known("hoouse", "en")
