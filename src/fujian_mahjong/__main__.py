"""``python -m fujian_mahjong`` runs the ``fjmj`` command."""

import sys

from fujian_mahjong.cli.main import main

sys.exit(main())
