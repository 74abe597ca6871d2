"""What a finished run says: stored aggregates, judge calibration, the dashboard's view model,
relative standing, paired comparison of runs, exports and the console summary."""
