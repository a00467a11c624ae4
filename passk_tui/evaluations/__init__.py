"""The service every face calls: text to settings, the target factory, new / resume / extend / pair."""
