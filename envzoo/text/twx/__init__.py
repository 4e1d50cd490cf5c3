"""TextWorldExpress-v0: the games of TextWorldExpress (CookingWorld, TextWorld Commonsense, Coin
and five more), played through its Java engine behind envzoo's text interface."""
