"""TextWorld-v1: TextWorld games generated offline, cached on disk, played through TextWorld."""
