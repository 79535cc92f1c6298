"""Las Vegan: the trick-taking game with cabbages, casino tokens and cabbage machines."""
