"""Las Vegas: the dice game of casinos, banknotes and majorities (game id ``vegas-dice``)."""
