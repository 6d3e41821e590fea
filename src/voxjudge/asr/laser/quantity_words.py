"""The words that name what a number counts, per language: percent, currencies and their
sub-units, units, months, articles before ordinals, decimal points, clock times and meridiems.

Data only: the written side is read in ``quantity_written``, the spoken forms are made in
``quantity_spoken``. Lists exist for en, fr, hi, mr, and the percent/currency/unit words of ml,
kn, ar, de, es; a language without them still gets digits against digits.
"""

from __future__ import annotations

PERCENT = {
    "en": ("percent", "per cent", "pc"),
    "fr": ("pour cent", "pourcent", "pour cents"),
    "hi": ("प्रतिशत", "फ़ीसदी", "फीसदी", "फ़ीसद", "परसेंट", "पर्सेंट", "प्रतिशत"),
    "mr": ("टक्के", "टक्का", "प्रतिशत", "परसेंट"),
    "ml": ("ശതമാനം",),
    "kn": ("ಶೇಕಡಾ", "ಪ್ರತಿಶತ", "ಶೇಕಡ"),
    "ar": ("بالمئة", "بالمائة", "في المئة", "في المائة", "بالمية"),
    "de": ("prozent",),
    "es": ("por ciento",),
    "it": ("per cento", "percento"),
    "pt": ("por cento",),
}
# symbol or code -> names per language (singular and plural, both accepted)
CURRENCY = {
    "$": {
        "en": ("dollar", "dollars", "bucks", "buck"),
        "fr": ("dollar", "dollars"),
        "hi": ("डॉलर", "डालर"),
        "mr": ("डॉलर",),
        "ml": ("ഡോളർ",),
        "kn": ("ಡಾಲರ್",),
        "ar": ("دولار", "دولارات", "دولارا"),
        "de": ("dollar",),
        "es": ("dólar", "dólares"),
    },
    "€": {
        "en": ("euro", "euros"),
        "fr": ("euro", "euros"),
        "hi": ("यूरो",),
        "mr": ("युरो",),
        "ar": ("يورو",),
        "de": ("euro",),
        "es": ("euro", "euros"),
        "it": ("euro",),
    },
    "£": {
        "en": ("pound", "pounds", "quid"),
        "fr": ("livre", "livres", "livre sterling", "livres sterling"),
        "hi": ("पाउंड", "पौंड"),
    },
    "₹": {
        "en": ("rupee", "rupees"),
        "fr": ("roupie", "roupies"),
        "hi": ("रुपये", "रुपए", "रुपया", "रूपये", "रूपए", "रुपय"),
        "mr": ("रुपये", "रुपया", "रुपयांचा"),
        "ml": ("രൂപ",),
        "kn": ("ರೂಪಾಯಿ", "ರೂ"),
    },
    "¥": {"en": ("yen",), "fr": ("yen", "yens"), "hi": ("येन",)},
}
UNITS = {
    "km": {
        "en": ("kilometre", "kilometres", "kilometer", "kilometers", "k"),
        "fr": ("kilomètre", "kilomètres", "kilo"),
        "hi": ("किलोमीटर", "किमी"),
        "mr": ("किलोमीटर",),
        "ml": ("കിലോമീറ്റർ",),
        "kn": ("ಕಿಲೋಮೀಟರ್",),
        "de": ("kilometer",),
        "es": ("kilómetro", "kilómetros"),
    },
    "m": {"en": ("metre", "metres", "meter", "meters"), "fr": ("mètre", "mètres"), "hi": ("मीटर",), "mr": ("मीटर",)},
    "cm": {
        "en": ("centimetre", "centimetres", "centimeter", "centimeters"),
        "fr": ("centimètre", "centimètres"),
        "hi": ("सेंटीमीटर",),
    },
    "mm": {"en": ("millimetre", "millimetres", "millimeter", "millimeters"), "fr": ("millimètre", "millimètres")},
    "kg": {
        "en": ("kilogram", "kilograms", "kilogramme", "kilogrammes", "kilo", "kilos"),
        "fr": ("kilogramme", "kilogrammes", "kilo", "kilos"),
        "hi": ("किलोग्राम", "किलो"),
        "mr": ("किलो", "किलोग्राम"),
        "de": ("kilogramm", "kilo"),
    },
    "g": {"en": ("gram", "grams", "gramme", "grammes"), "fr": ("gramme", "grammes"), "hi": ("ग्राम",)},
    "l": {"en": ("litre", "litres", "liter", "liters"), "fr": ("litre", "litres"), "hi": ("लीटर",)},
    "ml": {"en": ("millilitre", "millilitres", "milliliter", "milliliters"), "fr": ("millilitre", "millilitres")},
    "h": {"en": ("hour", "hours"), "fr": ("heure", "heures"), "hi": ("घंटे", "घंटा")},
    "hr": {"en": ("hour", "hours")},
    "hrs": {"en": ("hours",)},
    "min": {"en": ("minute", "minutes"), "fr": ("minute", "minutes"), "hi": ("मिनट",)},
    "s": {"en": ("second", "seconds"), "fr": ("seconde", "secondes")},
    "mph": {"en": ("miles per hour", "mile per hour")},
    "km/h": {
        "en": ("kilometres per hour", "kilometers per hour", "kilometres an hour", "kilometers an hour"),
        "fr": ("kilomètres heure", "kilomètres par heure", "kilomètre heure"),
    },
    "°c": {
        "en": ("degrees celsius", "degree celsius", "degrees centigrade", "degrees"),
        "fr": ("degrés celsius", "degrés"),
        "hi": ("डिग्री सेल्सियस", "डिग्री"),
    },
    "°f": {"en": ("degrees fahrenheit", "degree fahrenheit", "degrees")},
    "°": {"en": ("degrees", "degree"), "fr": ("degrés", "degré"), "hi": ("डिग्री",)},
}
UNITS["kmph"] = UNITS["km/h"]
MONTHS = {
    "en": "january february march april may june july august september october november december",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "hi": "जनवरी फ़रवरी मार्च अप्रैल मई जून जुलाई अगस्त सितंबर अक्टूबर नवंबर दिसंबर",
    "mr": "जानेवारी फेब्रुवारी मार्च एप्रिल मे जून जुलै ऑगस्ट सप्टेंबर ऑक्टोबर नोव्हेंबर डिसेंबर",
}
ARTICLES = {"en": ("the",), "fr": ("le", "la")}  # 'the third' / '3rd', 'le troisième' / '3e'
# the word between a decimal's whole part and its fraction ('three point one five')
DECIMAL_POINT = {"en": ("point",), "fr": ("virgule",), "hi": ("दशमलव", "पॉइंट", "प्वाइंट"), "mr": ("दशांश", "पॉइंट")}
# a currency's hundredth ('five dollars and fifty cents') and the word that may join it
SUBUNITS = {"en": ("cents", "cent", "pence", "paise"), "fr": ("centimes", "cents", "centime"), "hi": ("पैसे",)}
SUBUNIT_AND = {"en": ("", "and"), "fr": ("", "et"), "hi": ("", "और")}
# what may follow an English clock time for am and for pm
MERIDIEM_WORDS = {
    "am": ("am", "a m", "a.m.", "in the morning"),
    "pm": ("pm", "p m", "p.m.", "in the afternoon", "in the evening"),
}

# Hindi/Marathi clock words: सवा (quarter past), साढ़े (half past), पौने (quarter to), डेढ़ (1:30), ढाई (2:30)
INDIC_CLOCK = {
    "hi": {
        "o'clock": ("बजे", "बज"),
        "quarter": ("सवा",),
        "half": ("साढ़े", "साढे"),
        "to": ("पौने",),
        "1:30": ("डेढ़", "डेढ"),
        "2:30": ("ढाई",),
        "and": ("बजकर",),
        "minutes": ("मिनट",),
    },
    "mr": {
        "o'clock": ("वाजता", "वाजले", "वाजून"),
        "quarter": ("सव्वा",),
        "half": ("साडे",),
        "to": ("पावणे",),
        "1:30": ("दीड",),
        "2:30": ("अडीच",),
        "and": ("वाजून",),
        "minutes": ("मिनिटे", "मिनिटांनी"),
    },
}

__all__ = [
    "ARTICLES",
    "CURRENCY",
    "DECIMAL_POINT",
    "INDIC_CLOCK",
    "MERIDIEM_WORDS",
    "MONTHS",
    "PERCENT",
    "SUBUNITS",
    "SUBUNIT_AND",
    "UNITS",
]
