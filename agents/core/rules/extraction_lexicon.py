"""The extraction rules' data: the relation schema and the word lists the rules read.

Pure data (frozensets, dicts, a few compiled patterns); `agents/core/extraction.py` imports every
name from here, so a lexicon can be read, edited and diffed without reading the rules.
"""
from __future__ import annotations

import re

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
