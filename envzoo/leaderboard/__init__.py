"""The leaderboard: result files of training runs, normalized scores and their statistics."""
