"""The extraction rules' data: the relation schema and the word lists the rules read.

Pure data (frozensets, dicts, a few compiled patterns); `agents/core/extraction.py` imports every
name from here, so a lexicon can be read, edited and diffed without reading the rules.
"""
from __future__ import annotations

import re
from domain.entities import KINSHIP, PET_WORDS



# ============================================================================ relations and keys
SINGLE_VALUED = frozenset("""
name preferred_name age birthday lives_in from grew_up_in born_in work_field work_location
employment_status studies relationship_status partner nationality pronouns zodiac_sign pet_name
breed current_location business_type business_location business_hours business_name business_audience
business_delivery_area
""".split())
# multi-valued relation -> the polarity-free domain its key uses ("taste" gets a category prefix)
MULTI_DOMAIN = {
    "likes": "taste", "dislikes": "taste", "prefers": "taste", "wants": "taste", "does_not_want": "taste",
    "avoid_topic": "talk_about", "interest": "talk_about", "not_interested": "talk_about",
    "has_pet": "has_pet", "family_member": "family_member", "knows_person": "knows_person", "owns": "owns",
    "plays": "hobby", "hobby": "hobby", "learning": "learning", "identity": "identity", "allergic_to": "allergy",
    "health_condition": "health", "health_state": "health", "event": "event", "plan": "plan",
    "working_on": "project", "runs_business": "runs_business", "business_offering": "business_offering",
    "works_at": "works_at", "job_title": "job_title", "studies_at": "studies_at",
}
# Relations a person can hold several values of at once (a second job, a weekend job, a degree beside a
# job): each value is its own memory (the key carries the object, like any multi-valued relation), and a
# new value retires the others only when the message says it replaces them (REPLACE_CUE): the item then
# carries `replaces`, the relation-level key prefix "<type>|<subject>|<relation>", and the dedup layer
# supersedes every active memory under that prefix -- including ones stored before this scheme, whose
# key was the prefix itself. "I work at Siemens on weekends" after "I'm a nurse" keeps both; "I now work
# at Siemens" / "I quit and joined Siemens" / "I'm now a teacher" supersedes the old ones.
REPLACEABLE = frozenset({"works_at", "job_title", "studies_at"})
REPLACE_CUE = re.compile(
    r"\b(?:moved|relocated|quit|quitting|resigned|switched|switching|transferred|promoted|graduated|"
    r"joined(?!\s+(?:a|an|the|my)\s+(?:gym|club|band|choir|class|course|league|group|community|book))|"
    r"dropped\s+out|no\s+longer|any\s*more|new\s+(?:job|role|position|company|school|university|college)|"
    r"changed\s+(?:jobs?|careers?|companies|schools?|universities|colleges?)|got\s+(?:hired|a\s+job)|"
    r"started\s+(?:working|at|with|my\s+new|a\s+new)|left\s+(?:my\s+|the\s+)?(?:job|company|work|school|"
    r"university|college|uni)\b|left\s+(?-i:[A-Z])\w*|"
    r"(?:i|we|he|she|they)\s+(?:am|is|are)\s+now|(?:i|we|he|she|they)\s+now\s+(?:work|study|teach|am|is|are)|"
    r"(?:work|works|working|study|studies|studying)\s+(?:at|for|as|in)\s+[^,.;!?]{1,60}?\s+now)\b", re.I)
PREFERENCE_RELATIONS = frozenset({"likes", "dislikes", "prefers", "wants", "does_not_want", "avoid_topic",
                                  "interest", "not_interested"})
RELATIONS = tuple(sorted(SINGLE_VALUED | set(MULTI_DOMAIN)))  # plus favorite_<thing>
TEMPORAL_DEFAULT = {"plan": "7d", "event": "7d", "current_location": "1d", "health_state": "3d",
                    "working_on": "30d"}
CUE_TEMPORARY = frozenset({"avoid_topic", "interest", "not_interested"})


# ============================================================================ lexicons
def _words(s: str) -> frozenset[str]:
    return frozenset(w.replace("_", " ") for w in s.split())


OCCUPATIONS = _words("""
engineer developer programmer coder designer architect doctor physician surgeon dentist nurse pharmacist
therapist psychologist psychiatrist teacher professor lecturer tutor student researcher scientist analyst
accountant lawyer attorney paralegal consultant manager director executive ceo cto cfo coo founder cofounder
co-founder entrepreneur intern chef cook baker barista bartender waiter waitress cashier clerk salesman
salesperson marketer writer author journalist editor photographer artist painter musician singer dancer
actor actress filmmaker producer youtuber streamer influencer blogger pilot driver mechanic electrician
plumber carpenter technician officer soldier cop firefighter paramedic farmer librarian secretary
receptionist administrator recruiter banker trader investor economist trainer instructor veterinarian
translator interpreter freelancer contractor housewife homemaker guard janitor nanny caregiver counselor
pastor priest model tailor undergrad postdoc tester sysadmin specialist coordinator supervisor associate
broker realtor physiotherapist physio radiologist midwife dietitian nutritionist chemist biologist physicist
mathematician statistician historian principal welder machinist dispatcher courier sde swe dev devops
animator illustrator copywriter strategist auditor optometrist pediatrician cardiologist dermatologist
anesthesiologist resident surveyor pharmacologist geologist astronomer jeweler florist butcher hairdresser
hairstylist stylist barber beautician makeup_artist teller underwriter actuary paramedic lineman miner
fisherman sailor captain chauffeur clerk cleaner housekeeper gardener landscaper roofer painter mason
bricklayer programmer coach rapper composer dj vlogger podcaster lifeguard veterinarian vet paralegal
""")
STUDENT_LEVELS = _words("""
first second third fourth final last 1st 2nd 3rd 4th year grad graduate undergrad undergraduate phd doctoral
masters master's college university uni high school exchange international part-time full-time medical
""")
IDENTITY_NOUNS = _words("""
vegetarian vegan pescatarian introvert extrovert ambivert morning_person night_owl night_person early_bird
gamer cat_person dog_person foodie bookworm homebody single_mom single_dad single_parent mom dad mother
father parent grandparent grandmother grandfather twin christian muslim hindu sikh jain buddhist jew atheist
agnostic athlete runner cyclist swimmer gym_rat perfectionist procrastinator overthinker workaholic
otaku nerd geek tea_person coffee_person people_person first-generation_immigrant immigrant expat only_child
eldest_child middle_child youngest_child firstborn
""")
ZODIAC = _words("aries taurus gemini cancer leo virgo libra scorpio sagittarius capricorn aquarius pisces")
IDENTITY_ADJ = _words("""
vegetarian vegan pescatarian introverted extroverted left-handed right-handed colorblind colourblind
diabetic lactose_intolerant gluten_intolerant gluten-free pregnant autistic deaf gay lesbian bisexual bi
straight trans transgender nonbinary non-binary queer religious spiritual christian muslim hindu sikh jain
buddhist jewish atheist agnostic neurodivergent dyslexic sober teetotal
""")
REL_STATUS = {"single": "single", "married": "married", "engaged": "engaged", "divorced": "divorced",
              "widowed": "widowed", "separated": "separated", "taken": "in a relationship",
              "in a relationship": "in a relationship", "seeing someone": "seeing someone",
              "dating someone": "dating someone", "happily married": "married", "newly married": "married",
              "recently married": "married", "recently divorced": "divorced", "newly engaged": "engaged"}
EMPLOYMENT = {"retired": "retired", "unemployed": "unemployed", "self-employed": "self-employed",
              "self employed": "self-employed", "between jobs": "between jobs", "jobless": "unemployed",
              "out of work": "unemployed", "freelancing": "freelancing", "a freelancer": "freelancing",
              "job hunting": "job hunting", "looking for a job": "job hunting", "a stay at home mom":
              "stay-at-home parent", "a stay-at-home mom": "stay-at-home parent", "a stay at home dad":
              "stay-at-home parent", "a stay-at-home dad": "stay-at-home parent"}
DEMONYMS = _words("""
indian american british english german french canadian australian chinese japanese korean pakistani
bangladeshi sri_lankan nepali italian spanish mexican brazilian nigerian kenyan russian irish scottish
welsh dutch swedish norwegian danish finnish polish portuguese greek turkish egyptian iranian persian
filipino indonesian malaysian singaporean thai vietnamese argentinian argentine colombian chilean peruvian
south_african ghanaian ethiopian ukrainian romanian hungarian czech austrian swiss belgian israeli
lebanese saudi emirati new_zealander kiwi jamaican cuban tamil punjabi bengali gujarati malayali telugu
kannadiga marathi bihari sindhi kashmiri
""")
PARTNER_KIN = frozenset({"wife", "husband", "girlfriend", "boyfriend", "partner", "fiance"})
SOCIAL_KIN = frozenset({"friend", "best_friend", "roommate", "boss", "coworker", "ex", "crush", "neighbor",
                        "therapist", "teacher", "mentor", "coach"})
POSSESSIONS = _words("""
car bike bicycle motorcycle motorbike scooter house apartment flat condo boat garden farm ps5 playstation
xbox piano guitar truck van jeep tesla laptop gaming_pc
""")
EVENTS = _words("""
exam exams test tests interview job_interview meeting presentation deadline appointment doctor's_appointment
doctors_appointment dentist_appointment dentist's_appointment vet_appointment date first_date party
wedding flight trip match game concert surgery operation class lecture shift night_shift call audition
recital performance hackathon review performance_review viva final finals midterm midterms quiz
assignment submission checkup check-up session therapy_session workshop conference seminar recital
""")
HEALTH_CHRONIC = _words("""
diabetes asthma adhd autism anxiety depression ocd ptsd bipolar migraines arthritis allergies insomnia
high_blood_pressure hypertension celiac ibs pcos epilepsy eczema psoriasis dyslexia back_pain
chronic_pain thyroid a_thyroid_problem endometriosis
""")
HEALTH_ACUTE = _words("""
cold fever flu headache cough sore_throat covid food_poisoning hangover migraine toothache stomach_ache
stomachache sprained_ankle broken_arm broken_leg the_flu
""")
FOODS = _words("""
biryani pizza pasta sushi ramen tacos taco burger burgers dosa dosas idli sambar paneer chicken mutton fish
seafood noodles rice curry chocolate chocolates ice_cream cake cakes dessert desserts sweets coffee tea chai
beer wine whisky whiskey vodka spicy_food food street_food pani_puri chaat momos dumplings salad fries
steak bbq barbecue kebab kebabs samosa samosas vada_pav pav_bhaji butter_chicken tikka naan fruit fruits
mango mangoes banana bananas apple apples avocado avocados cheese bread eggs egg bacon pancakes waffles
cookies donuts doughnuts smoothies juice soda coke pepsi milk cereal oats soup vegetables veggies broccoli
mushrooms mushroom olives onions garlic coriander cilantro chillies chilies pickles thai_food chinese_food
italian_food indian_food mexican_food korean_food japanese_food junk_food fast_food home_food breakfast
lunch dinner brunch snacks spicy meat pork beef lamb prawns shrimp tofu kimchi pho curd yogurt yoghurt
rasgulla gulab_jamun jalebi halwa kheer ladoo lassi filter_coffee espresso latte cappuccino matcha boba
bubble_tea sandwiches sandwich hummus falafel shawarma biriyani pulao khichdi rajma chole dal daal roti
chapati parotta poori puri upma poha pho pad_thai dim_sum croissants pastries pastry bagels burritos
nachos spaghetti lasagna risotto cucumber tomatoes potatoes peanuts nuts strawberries oranges grapes
watermelon pineapple coconut candy gum mayo mayonnaise ketchup mustard wasabi mint cinnamon caffeine
alcohol cocktails mocktails lemonade
""")
GAMES = _words("""
valorant minecraft fortnite league_of_legends lol csgo cs:go cs2 counter-strike pubg bgmi gta gta_v gta_5
fifa call_of_duty cod warzone apex apex_legends overwatch dota dota_2 roblox among_us genshin genshin_impact
elden_ring zelda mario pokemon animal_crossing the_sims sims rocket_league free_fire clash_of_clans
clash_royale chess video_games games gaming
""")
MUSIC = _words("""
rock jazz pop hip_hop hip-hop rap edm classical_music kpop k-pop metal country indie_music bollywood_music
lo-fi lofi blues reggae techno house_music punk r&b rnb soul folk_music carnatic_music hindustani_music
music
""")
ACTIVITIES_DO = _words("""
yoga pilates crossfit karate judo kickboxing taekwondo boxing ballet gymnastics meditation martial_arts
zumba aerobics calisthenics weightlifting powerlifting parkour tai_chi jiu_jitsu bjj mma salsa bharatanatyam
kathak
""")
INDUSTRIES = _words("""
it tech technology marketing finance sales hr healthcare education retail software banking consulting
insurance hospitality construction media law real_estate government engineering design advertising
publishing logistics manufacturing pharma pharmaceuticals research academia accounting fashion
journalism nursing medicine film music gaming telecom operations customer_support support cybersecurity
security data analytics
""")
SCHOOL_WORDS = ("university", "college", "school", "institute", "academy", "polytechnic", "iit", "iim", "nit",
                "bits", "vit", "uni", "campus")
BUSINESS_WORDS = ("business", "company", "shop", "store", "brand", "startup", "restaurant", "bakery", "cafe",
                  "café", "firm", "agency", "studio", "salon", "clinic", "office", "outlet", "showroom",
                  "boutique", "kitchen", "gym", "spa", "pharmacy", "hotel", "venue", "place")
ACRONYMS = frozenset("""iit iim nit mit ucla nyu usa uk us uae tcs ibm hcl ey kpmg pwc bits vit srm aiims nasa
bbc isro drdo hsbc sbi hdfc icici lic nhs un who ai ml ui ux qa hr it sde swe cto ceo cfo coo vp gm
""".split())
COMPOUND_OBJECTS = frozenset({"mac and cheese", "rock and roll", "salt and pepper", "fish and chips",
                              "bread and butter", "pb and j", "rhythm and blues", "dungeons and dragons",
                              "pen and paper", "sweet and sour", "arts and crafts", "drum and bass",
                              "law and order", "pride and prejudice", "rice and beans", "chips and salsa",
                              "peanut butter and jelly", "tom and jerry", "hide and seek", "research and development"})
# capitalised words that are not names ("I'm Fine", "I'm Home")
NAME_STOP = frozenset("""
a an the i me my we you he she it they this that here there home back done fine good great ok okay sorry
tired happy sad bored busy sick ready sure glad excited stressed worried anxious lonely hungry thirsty
sleepy awake late early free lost confused curious serious kidding joking going coming trying just so very
really not also still feeling gonna about off out in on up down over alright well better worse new old
single married engaged divorced fat thin tall short alive dead drunk high sober broke rich poor fucked
screwed finished exhausted pumped stoked hyped thrilled nervous scared afraid angry mad upset annoyed
frustrated grateful thankful blessed lucky proud ashamed embarrassed jealous hurt heartbroken okayish meh
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
september october november december today tomorrow tonight yesterday now always never sometimes what who
where why how which yes no yeah nope hey hi hello thanks thank please sir madam bro dude man girl boy guy
lol haha hmm omg wow oh ah uh um well like literally totally basically actually honestly probably maybe
definitely almost nearly only even too quite pretty kinda sorta super hella mostly all both each every
someone somebody anyone everyone nobody nothing something anything everything none god jesus hungover
vegetarian vegan gay straight bi christian muslim hindu english indian american doing being having getting
making taking working studying living staying moving leaving waiting looking thinking trying feeling
planning hoping starting learning playing watching reading writing eating drinking sleeping at with from
to for of by as and or but if then than because since while when until again already sick ill unwell
available online offline outside inside away around nearby near far close open closed sorry apologies
excited hopeful hopeless useless helpless cool hot cold warm wet dry hungry full stuffed bad terrible
awful horrible amazing awesome fantastic wonderful fabulous perfect normal weird strange crazy insane
mad dumb stupid smart clever funny silly lazy shy quiet loud calm relaxed chill fine fucking bloody
stuck later soon sometime anytime asap whatever crazy baby babe honey dear darling sweetie old-fashioned
broken shattered drained burnt burned overwhelmed depressed disappointed surprised shocked amazed impressed
interested bored sleepy jealous lucky unlucky blessed cursed ruined wasted hammered stoned baked lit
starving freezing boiling sweating dying crying laughing kidding serious new alone together okay sure
certain positive negative right wrong correct fair unfair honest late early everywhere nowhere somewhere
""".split())
GREETING = re.compile(r"^\s*(?:hi+|hey+|hello+|heya|hiya|yo|sup|namaste|hola|good\s+(?:morning|evening|afternoon))\b",
                      re.I)
NUMWORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
            "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
            "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
            "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a couple of": 2,
          "couple of": 2, "a couple": 2, "twin": 2, "twins": 2}


# ============================================================================ text folding
_TRANS = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'", "“": '"', "”": '"', "—": " - ",
                        "–": " - ", "…": "... ", "\u00a0": " "})


# abbreviations whose period ends no sentence and cuts no phrase ("St. Mary's hospital", "Dr. Rao", "Acme
# Ltd. in Pune", "J. K. Rowling" - a single capital is an initial); each spelling is a fixed-width lookbehind
ABBREVIATIONS = ("St", "Dr", "Mr", "Mrs", "Ms", "Mt", "Jr", "Sr", "Inc", "Co", "Ltd", "Prof", "Ft", "e.g", "i.e")
_PRONOUN_OBJ = frozenset("""it this that these those them him her me us you yourself yourselves everything
nothing anything something everyone anybody everybody someone somebody one what how when where why who
which the way such so too its your ur ya yours there here stuff things thing lot much more any some
whatever whoever the fact whenever if""".split())
_REJECT_OBJ = frozenset({"something else", "anything else", "other things", "other stuff", "it all",
                         "this one", "that one", "the idea", "your idea", "the same", "it more",
                         "that idea", "what you said", "this conversation", "talking to you",
                         "chatting with you", "this chat", "you guys", "the way you"})
_DOUBLE_FINAL = frozenset("run swim jog shop chat plan stop sit get dig skip hop rap drum bat spin hit "
                          "cut set put win".split())


# ============================================================================ subjects
_NOT_SUBJECT_ROLES = frozenset({"mil", "pop", "pops", "mate", "pal", "mam", "maa", "folks", "mrs", "missus",
                                "kid", "child", "baby", "lab", "indie", "persian", "mouse", "boxer dog",
                                "significant other", "crush", "mutt", "class", "classes"})


_PLACE_REJECT = frozenset("""denial fear my head peace hope the moment the present the past a bubble my car my
room hell the dark my dreams a dream sin harmony the shadows luxury misery poverty comfort a box bed the city
here there town the area this area the same city the same place a house an apartment a flat a hostel
a dorm my parents house a van a tent the suburbs the countryside my own world my own head my mind
""".split("\n")) | frozenset({"denial", "fear", "peace", "hope", "hell", "luxury", "misery", "poverty", "comfort",
                              "bed", "here", "there", "town", "harmony", "sin", "love", "pain", "debt", "trouble",
                              "shock", "awe", "the moment", "my head", "my car", "my room", "a bubble",
                              "the present", "the past", "my dreams", "the dark", "the same place", "the area",
                              "the city", "my mind", "my own world", "the matrix", "a simulation", "the future",
                              "the past", "another planet", "space", "mars", "the moon", "the weekends"})
_ORG_REJECT = frozenset({"home", "night", "nights", "the moment", "a living", "free", "fun", "money", "peanuts",
                         "minimum wage", "a while", "hours", "the weekend", "weekends", "night shift", "night shifts",
                         "myself", "me", "you", "it", "them", "him", "her", "us", "work", "a bit", "the most",
                         "long hours", "the same company", "the same place", "nothing", "the day", "a change",
                         "a cause", "my dad", "my mom", "my father", "my mother", "my family", "my parents"})
_GENERIC_PLACE_WORDS = frozenset(SCHOOL_WORDS) | frozenset(BUSINESS_WORDS) | _words("""
hospital library office bank gym mall clinic factory church temple mosque station airport hotel lab center centre
museum zoo park farm warehouse market department firm agency plant site branch hq headquarters uni""")
_QUALITY = frozenset("""really very good bad terrible great decent amazing horrible awful lousy pretty quite such
huge big total complete bit little lot horrible shitty crappy proper real true wannabe aspiring former ex
retired failed struggling wanna be future""".split())


# ============================================================================ "I have ..."
_HAS_LEX: dict[str, str] = {}


for _w in PET_WORDS:
    if _w not in {"mouse", "lab", "indie", "persian", "boxer dog"}:
        _HAS_LEX[_w] = "pet"
for _w in KINSHIP:
    if _w not in {"crush", "pop", "pops", "mate", "pal", "mam", "maa", "mil", "folks", "mrs", "missus", "class"}:
        _HAS_LEX.setdefault(_w, "kin")
for _lex, _kind in ((POSSESSIONS, "own"), (EVENTS, "event"), (HEALTH_CHRONIC, "chronic"), (HEALTH_ACUTE, "acute")):
    for _w in _lex:
        _HAS_LEX.setdefault(_w.replace("-", " "), _kind)
_HAS_MAXLEN = max(len(k.split()) for k in _HAS_LEX)
_DETS = {"a", "an", "one", "two", "three", "four", "five", "six", "some", "several", "few", "couple", "of",
         "my", "our", "the", "another", "new", "2", "3", "4", "5", "6", "twin", "twins", "lots", "many", "multiple",
         "upcoming", "big", "important", "huge", "little", "small", "cute", "beautiful", "lovely", "old",
         "young", "older", "younger", "elder", "baby", "adorable", "rescue", "adopted", "sweet", "3-year-old",
         "golden", "black", "white", "brown", "fluffy", "tiny", "crazy", "lazy", "grumpy", "wonderful",
         "amazing", "awesome", "super", "really", "very", "pet", "stupid", "silly", "annoying", "final", "doctor's",
         "dentist's", "job", "first", "second", "2nd", "1st", "third", "second-year", "big", "massive",
         "chronic", "mild", "severe", "bad", "terrible", "awful", "slight", "bit", "nasty", "horrible"}
_NEG_DETS = {"no", "zero", "none", "not", "never", "any", "without", "fake", "imaginary", "stuffed", "toy",
             "hot", "plush", "robot", "virtual", "pretend", "dream"}
_REMAINDER_OK = {"named", "called", "name", "who", "that", "which", "and", "with", "at", "in", "on", "for",
                 "from", "to", "back", "whose", "too", "also", "now", "as", "here", "there", "lol", "haha",
                 "btw", "but", "so", "at", "since", "tonight", "today", "tomorrow", "this", "next", "soon",
                 "and", "of", "living", "staying", "who's", "whom", "already", "together", "though", "i", "right",
                 "by", "just", "finally", "again", "after", "before", "around", "about", "over", "coming", "later",
                 "her", "his", "their", "she", "he", "they", "we", "my", "it", "its", "who", "whos"}
_GROUP_KIN = frozenset({"children", "kids", "parents", "siblings", "grandparents", "twins", "in laws"})


# ============================================================================ preferences
_POS = {"love": "loves", "loves": "loves", "adore": "adores", "adores": "adores", "like": "likes",
        "likes": "likes", "enjoy": "enjoys", "enjoys": "enjoys", "dig": "likes", "digs": "likes",
        "really like": "really likes", "am obsessed with": "is obsessed with", "cannot get enough of":
        "can't get enough of", "cannot live without": "can't live without", "worship": "loves",
        "support": "supports", "root for": "roots for", "am a fan of": "is a fan of"}


_NEG = {"hate": "hates", "hates": "hates", "dislike": "dislikes", "dislikes": "dislikes", "detest": "hates",
        "detests": "hates", "despise": "hates", "despises": "hates", "loathe": "hates", "loathes": "hates",
        "cannot stand": "can't stand", "can not stand": "can't stand", "cannot handle": "can't handle",
        "cannot tolerate": "can't tolerate", "cannot eat": "can't eat", "am not a fan of": "isn't a fan of",
        "never liked": "has never liked", "never really liked": "has never liked", "never like": "doesn't like",
        "never enjoy": "doesn't enjoy", "never enjoyed": "has never enjoyed"}
_VERBISH = frozenset("""stay go watch read play sleep eat drink cook walk run text call talk work study be do get
have listen write travel sit chill relax hang spend take stay walk drive bike swim dance sing paint draw code
write die wait cry fight lose win""".split())
# verbs "going to <verb> ..." plans with (never a place one goes to: "work", "school", "dinner" are left out)
PLAN_VERBS = _words("""
visit see meet watch paint repaint cook bake make buy start finish clean fix build play read write call book sell
hire throw host attend apply celebrate learn study spend travel fly drive take plant order rent pack join launch
record pick hang renovate decorate organize organise prepare practice practise run walk hike swim ride climb adopt
move quit sign register propose marry help teach binge grab check
""")
_NOT_PLANS = frozenset({"be", "go", "have", "get", "try", "need", "die", "cry", "sleep", "kill", "lose", "miss",
                        "say", "tell", "ask", "do"})
_MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december"})
_NOT_GO_ING = frozenset({"going", "bring", "thing", "nothing", "something", "everything"})
_TOPIC_REJECT = frozenset({"yourself", "you", "your day", "something else", "anything", "anything else", "it", "that",
                           "this", "me", "us", "what", "how", "why", "something", "stuff", "things", "your life",
                           "life", "whatever", "the other thing", "something fun", "something different",
                           "something new", "another thing", "other things", "this again", "that again"})
_NAMING = ("my", "name", "the name")


# ============================================================================ the relation tags an item carries
_REL_TAGS = {"name": ("identity",), "preferred_name": ("identity",), "age": ("identity",), "birthday": ("identity",),
             "lives_in": ("location",), "from": ("location",), "grew_up_in": ("location",), "born_in": ("location",),
             "current_location": ("location",), "works_at": ("work",), "job_title": ("work",),
             "studies_at": ("education",), "has_pet": ("pets",), "pet_name": ("pets",), "breed": ("pets",),
             "family_member": ("family",), "likes": ("preferences",), "dislikes": ("preferences",),
             "prefers": ("preferences",), "avoid_topic": ("boundaries",), "interest": ("interests",),
             "plays": ("hobbies",), "hobby": ("hobbies",)}


# ============================================================================ pronoun objects
# "I'm visiting her next month" says nothing on its own: a pronoun object is resolved to the one person or pet
# the same message introduced that it can refer to ("My sister is sick, I'm visiting her" -> "Is visiting
# their sister"), else the item is dropped (the episode keeps the message). pronoun -> the kinds it can name
# and the roles it cannot (gender of the kin word).
_MALE_ROLES = frozenset("brother dad son husband boyfriend uncle grandpa nephew stepdad father_in_law".split())


_FEMALE_ROLES = frozenset("sister mom daughter wife girlfriend aunt grandma niece stepmom mother_in_law".split())
OBJECT_PRONOUNS = {"her": ({"person", "pet"}, _MALE_ROLES), "him": ({"person", "pet"}, _FEMALE_ROLES),
                   "them": ({"person", "pet"}, frozenset()), "it": ({"pet"}, frozenset()),
                   "that": (set(), frozenset()), "this": (set(), frozenset()), "there": (set(), frozenset())}
_POSSESSION = frozenset({"has_pet", "family_member", "partner", "knows_person", "owns"})
