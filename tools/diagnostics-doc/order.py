_inc = [t for t in TOPICS if t[0] == "Includes"][0]
TOPICS.remove(_inc)
TOPICS.insert(2, _inc)
