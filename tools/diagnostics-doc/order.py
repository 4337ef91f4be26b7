_inc = [t for t in TOPICS if t[0] == "Includes"][0]
TOPICS.remove(_inc)
TOPICS.insert(2, _inc)
_spell = [t for t in TOPICS if t[0] == "Spelling and CUDA habits"][0]
TOPICS.remove(_spell)
TOPICS.insert(2, _spell)
