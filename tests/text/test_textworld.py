"""TextWorld-v1 against TextWorld itself: the walkthrough wins every game of the pools used here
in exactly its length, dense rewards telescope to 1, the ladder's quest lengths hold, the default
level's walkthroughs are long, a user's own game files and folders play, bad ones are named.
Games compile once into the disk cache (the conformance suite uses the default pool too)."""

from __future__ import annotations

import pytest

textworld = pytest.importorskip("textworld")

import envzoo  # noqa: E402
from envzoo.text.tw.generator import ensure_game  # noqa: E402
from envzoo.text.tw.params import DEFAULT_LEVEL, LADDER, make_params  # noqa: E402

ID = "envzoo/TextWorld-v1"


def play_expert(env, seed):
    expert = envzoo.make_policy(ID, "expert", env)
    expert.reset(seed)
    observation, info = env.reset(seed=seed)
    walkthrough, rewards = info["walkthrough"], []
    terminated = truncated = False
    while not (terminated or truncated):
        observation, reward, terminated, truncated, info = env.step(expert(observation, info))
        rewards.append(reward)
    return walkthrough, rewards, terminated, info


@pytest.mark.parametrize("kwargs", [{}, {"level": 3, "num_games": 1}, {"family": "tw-coin_collector", "num_games": 1}])
def test_expert_wins_every_game_of_the_pool(kwargs):
    env = envzoo.make(ID, reward="dense", **kwargs)
    pool = env.unwrapped.params.num_games
    played = set()
    for seed in range(40):
        if len(played) == pool:
            break
        walkthrough, rewards, terminated, info = play_expert(env, seed)
        played.add(env.unwrapped.task.episodes[0][0])  # the game of the pool it drew
        metrics = info["metrics"]
        assert terminated and info["won"] and metrics["success"] == 1.0 and metrics["progress"] == 100.0
        assert metrics["steps_over_optimal"] == 0 and metrics["invalid_rate"] == 0.0
        assert sum(rewards) == pytest.approx(1.0) and all(r > 0 for r in rewards)
        if kwargs.get("level"):
            assert len(walkthrough) == LADDER[kwargs["level"] - 1][2]  # the quest length asked for
    assert len(played) == pool  # every game of the pool came up
    env.close()


def test_a_step_away_from_the_goal_is_rewarded_negatively_when_dense():
    env = envzoo.make(ID, level=3, num_games=1, reward="dense")
    observation, info = env.reset(seed=0)
    first = info["walkthrough"][0]
    observation, reward, *_ = env.step(first)
    assert reward == pytest.approx(1 / len(info["walkthrough"]))
    undo = {"open": "close", "close": "open", "take": "drop", "drop": "take"}.get(first.split(" ")[0])
    if undo is None:  # a move: go back the way it came
        undo = {"east": "west", "west": "east", "north": "south", "south": "north"}[first.split(" ")[-1]]
        command = f"go {undo}"
    else:
        command = f"{undo} {' '.join(first.split(' ')[1:]).split(' from ')[0]}"
    observation, reward, *_ = env.step(command)
    assert reward == pytest.approx(-1 / len(info["walkthrough"])), (first, command, observation)
    env.close()


def test_sparse_rewards_and_unknown_commands():
    env = envzoo.make(ID)
    observation, info = env.reset(seed=1)
    observation, reward, terminated, truncated, step_info = env.step("dance with the furniture")
    assert reward == 0.0 and not terminated and step_info["metrics"]["invalid_rate"] == 1.0
    rewards = [env.step(command)[1] for command in info["walkthrough"]]
    assert rewards[-1] == 1.0 and sum(rewards) == 1.0
    env.close()


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="level"):
        envzoo.make(ID, family="tw-treasure_hunter", level=31)
    with pytest.raises(ValueError, match="family"):
        envzoo.make(ID, family="zork")


def test_the_default_level_asks_for_walkthroughs_of_at_least_ten_commands():
    env = envzoo.make(ID)
    assert env.unwrapped.params.level == DEFAULT_LEVEL
    lengths = {}
    for seed in range(40):
        observation, info = env.reset(seed=seed)
        lengths[env.unwrapped.task.episodes[0][0]] = len(info["walkthrough"])
        if len(lengths) == env.unwrapped.params.num_games:
            break
    assert len(lengths) == env.unwrapped.params.num_games and min(lengths.values()) >= 10, lengths
    env.close()


@pytest.fixture(scope="module")
def user_game(tmp_path_factory):
    """A user's own game: a generated game (from the cache) copied with its metadata to a folder of its own."""
    folder = tmp_path_factory.mktemp("my_games")
    source = ensure_game(make_params(level=2, num_games=1), 0)
    for suffix in (".z8", ".json"):
        (folder / f"my_game{suffix}").write_bytes(source.with_suffix(suffix).read_bytes())
    return folder / "my_game.z8"


@pytest.mark.parametrize("as_folder", [False, True])
def test_a_users_game_file_or_folder_plays_and_its_walkthrough_wins(user_game, as_folder):
    env = envzoo.make(ID, games=user_game.parent if as_folder else [str(user_game)])
    assert env.unwrapped.params.games == (user_game,)
    walkthrough, rewards, terminated, info = play_expert(env, seed=3)
    assert walkthrough == textworld.Game.load(str(user_game.with_suffix(".json"))).walkthrough  # the metadata's
    assert terminated and info["won"] and info["metrics"]["success"] == 1.0 and rewards[-1] == 1.0
    env.close()


def test_several_files_and_folders_make_one_pool(user_game, tmp_path):
    (tmp_path / "notes.txt").write_text("not a game")  # a folder's other files are not games
    for suffix in (".z8", ".json"):
        (tmp_path / f"copy{suffix}").write_bytes(user_game.with_suffix(suffix).read_bytes())
    params = envzoo.make(ID, games=[user_game, tmp_path]).unwrapped.params
    assert params.games == (user_game, tmp_path / "copy.z8") and params.num_games == 2


def test_bad_games_are_named(user_game, tmp_path):
    def fails(error, match, games, **kwargs):
        with pytest.raises(error, match=match):
            envzoo.make(ID, games=games, **kwargs)

    fails(FileNotFoundError, "no such game file or folder: .*missing.z8", tmp_path / "missing.z8")
    fails(ValueError, "holds no .z8 game file", tmp_path)  # an empty folder
    fails(ValueError, "empty list", [])
    (tmp_path / "notes.txt").write_text("not a game")
    fails(ValueError, "notes.txt is not a TextWorld game", tmp_path / "notes.txt")
    fails(ValueError, "pass the game file .*my_game.z8", user_game.with_suffix(".json"))
    (tmp_path / "old.ulx").write_bytes(b"Glul")
    fails(ValueError, "Glulx game .* compile it again as .z8", tmp_path / "old.ulx")
    (tmp_path / "bare.z8").write_bytes(user_game.read_bytes())
    fails(FileNotFoundError, "has no metadata .*bare.json", tmp_path / "bare.z8")
    (tmp_path / "bare.json").write_text('{"quests": []}')
    fails(ValueError, "no quest in its metadata", tmp_path / "bare.z8")
    (tmp_path / "bare.json").write_text("[1, 2]")
    fails(ValueError, "bare.json is not TextWorld game metadata", tmp_path / "bare.z8")
    fails(ValueError, "pass games or level, not both", user_game, level=3)
    fails(ValueError, "a path or a list of paths", 7)
