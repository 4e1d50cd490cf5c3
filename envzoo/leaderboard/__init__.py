"""The leaderboard: result files of training runs, normalized scores and their statistics."""

#: Replications of the stratified bootstrap behind every interval (rliable's default).
BOOTSTRAP_REPS = 50_000
