"""One module per experiment; each `run(spark, data_dir, quick)` returns report Sections."""
