from mmdocsum_desktop.cli import main

raise SystemExit(main())
