package dev.cellar.api.v1;

/**
 * CEL rules for {@code spec.backup.schedule}: what Kubernetes' CronJob validation (the standard
 * five-field cron syntax) would refuse later, refused at admission with the field it concerns, and
 * a day that never comes. Each value is {@code *} or {@code ?}, a number or name, or a range {@code
 * a-b} with {@code a <= b}, optionally with a step {@code /n} ({@code n > 0}), or a comma list of
 * those. Macros ({@code @daily} and friends) are left to the pattern.
 *
 * <p>Written as constant expressions so that the annotations on {@link BackupSpec} can use them.
 */
final class CronRules {
  private CronRules() {}

  /** The longest schedule: enough for any sane one, and a bound the API server's CEL cost needs. */
  static final int MAX_LENGTH = 128;

  /** The five fields, tabs read as spaces. */
  static final String FIELDS = "self.replace('\\t', ' ').split(' ').filter(t, t != '')";

  /** The rule applies only to five-field schedules (the pattern refuses anything else). */
  private static final String FIVE_FIELDS = "self.startsWith('@') || size(" + FIELDS + ") != 5 || ";

  static final String MONTHS =
      "{'jan': 1, 'feb': 2, 'mar': 3, 'apr': 4, 'may': 5, 'jun': 6, 'jul': 7, 'aug': 8,"
          + " 'sep': 9, 'oct': 10, 'nov': 11, 'dec': 12}";

  static final String WEEKDAYS =
      "{'sun': 0, 'mon': 1, 'tue': 2, 'wed': 3, 'thu': 4, 'fri': 5, 'sat': 6}";

  /** The most days each month can have (February: 29, in leap years). */
  static final String DAYS_IN_MONTH =
      "{1: 31, 2: 29, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}";

  // A field's values, as regular expressions: Kubernetes' cron parser reads numbers with leading
  // zeros, and names in any case (the rules lower-case each field first).
  private static final String MINUTE_VALUE = "0*([0-9]|[1-5][0-9])";
  private static final String HOUR_VALUE = "0*([0-9]|1[0-9]|2[0-3])";
  private static final String DAY_VALUE = "0*([1-9]|[12][0-9]|3[01])";
  private static final String MONTH_VALUE =
      "(0*([1-9]|1[0-2])|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)";
  private static final String WEEKDAY_VALUE = "(0*[0-6]|sun|mon|tue|wed|thu|fri|sat)";

  /** A step: a number of at least 1. */
  private static final String STEP = "(/0*[1-9][0-9]{0,8})?";

  private static final String MINUTE_ELEMENT =
      "([*?]|" + MINUTE_VALUE + "(-" + MINUTE_VALUE + ")?)" + STEP;
  private static final String HOUR_ELEMENT =
      "([*?]|" + HOUR_VALUE + "(-" + HOUR_VALUE + ")?)" + STEP;
  private static final String DAY_ELEMENT = "([*?]|" + DAY_VALUE + "(-" + DAY_VALUE + ")?)" + STEP;
  private static final String MONTH_ELEMENT =
      "([*?]|" + MONTH_VALUE + "(-" + MONTH_VALUE + ")?)" + STEP;
  private static final String WEEKDAY_ELEMENT =
      "([*?]|" + WEEKDAY_VALUE + "(-" + WEEKDAY_VALUE + ")?)" + STEP;

  // Field i, lower-cased.
  private static final String F0 = FIELDS + "[0].lowerAscii()";
  private static final String F1 = FIELDS + "[1].lowerAscii()";
  private static final String F2 = FIELDS + "[2].lowerAscii()";
  private static final String F3 = FIELDS + "[3].lowerAscii()";
  private static final String F4 = FIELDS + "[4].lowerAscii()";

  // Every element `e` of a field that is a range a-b (after the shape is known good): a <= b.
  private static final String EACH_RANGE = ".split(',').all(e, !e.split('/')[0].contains('-') || ";
  private static final String START = "e.split('/')[0].split('-')[0]";
  private static final String END = "e.split('/')[0].split('-')[1]";

  static final String MINUTE =
      FIVE_FIELDS
          + "("
          + F0
          + ".matches('^"
          + MINUTE_ELEMENT
          + "(,"
          + MINUTE_ELEMENT
          + ")*$') && "
          + F0
          + EACH_RANGE
          + "int("
          + START
          + ") <= int("
          + END
          + ")))";

  static final String HOUR =
      FIVE_FIELDS
          + "("
          + F1
          + ".matches('^"
          + HOUR_ELEMENT
          + "(,"
          + HOUR_ELEMENT
          + ")*$') && "
          + F1
          + EACH_RANGE
          + "int("
          + START
          + ") <= int("
          + END
          + ")))";

  static final String DAY_OF_MONTH =
      FIVE_FIELDS
          + "("
          + F2
          + ".matches('^"
          + DAY_ELEMENT
          + "(,"
          + DAY_ELEMENT
          + ")*$') && "
          + F2
          + EACH_RANGE
          + "int("
          + START
          + ") <= int("
          + END
          + ")))";

  static final String MONTH =
      FIVE_FIELDS
          + "("
          + F3
          + ".matches('^"
          + MONTH_ELEMENT
          + "(,"
          + MONTH_ELEMENT
          + ")*$') && "
          + F3
          + EACH_RANGE
          + "("
          + START
          + ".matches('^[0-9]+$') ? int("
          + START
          + ") : "
          + MONTHS
          + "["
          + START
          + "]) <= ("
          + END
          + ".matches('^[0-9]+$') ? int("
          + END
          + ") : "
          + MONTHS
          + "["
          + END
          + "])))";

  static final String DAY_OF_WEEK =
      FIVE_FIELDS
          + "("
          + F4
          + ".matches('^"
          + WEEKDAY_ELEMENT
          + "(,"
          + WEEKDAY_ELEMENT
          + ")*$') && "
          + F4
          + EACH_RANGE
          + "("
          + START
          + ".matches('^[0-9]+$') ? int("
          + START
          + ") : "
          + WEEKDAYS
          + "["
          + START
          + "]) <= ("
          + END
          + ".matches('^[0-9]+$') ? int("
          + END
          + ") : "
          + WEEKDAYS
          + "["
          + END
          + "])))";

  /**
   * A schedule whose days of the month never occur in its months (30 February, 31 April) never
   * runs. Judged where CEL can tell: a list of day numbers, a list of months, any weekday (a
   * restricted weekday would make cron run on either match): the smallest day must fit the longest
   * month.
   */
  static final String DAY_EXISTS =
      FIVE_FIELDS
          + "!("
          + FIELDS
          + "[4] in ['*', '?']) || !"
          + F2
          + ".matches('^"
          + DAY_VALUE
          + "(,"
          + DAY_VALUE
          + ")*$') || !"
          + F3
          + ".matches('^"
          + MONTH_VALUE
          + "(,"
          + MONTH_VALUE
          + ")*$') || "
          + F2
          + ".split(',').map(d, int(d)).min() <= "
          + F3
          + ".split(',').map(m, "
          + DAYS_IN_MONTH
          + "[m.matches('^[0-9]+$') ? int(m) : "
          + MONTHS
          + "[m]]).max()";

  /** The fields' checks: one rule, since fabric8's apt generator takes one rule per element. */
  static final String RULE =
      "("
          + MINUTE
          + ") && ("
          + HOUR
          + ") && ("
          + DAY_OF_MONTH
          + ") && ("
          + MONTH
          + ") && ("
          + DAY_OF_WEEK
          + ")";

  /** What a field's value may be, for the messages. */
  private static final String SHAPES =
      " is not *, a number, a range a-b with a <= b, either with a step /n (n > 0), or a comma"
          + " list of those, within ";

  /** The first field whose check fails, by name and value (only evaluated when one does). */
  static final String MESSAGE =
      "!("
          + MINUTE
          + ") ? 'the minute field (1st) ' + "
          + FIELDS
          + "[0] + '"
          + SHAPES
          + "0-59' : !("
          + HOUR
          + ") ? 'the hour field (2nd) ' + "
          + FIELDS
          + "[1] + '"
          + SHAPES
          + "0-23' : !("
          + DAY_OF_MONTH
          + ") ? 'the day-of-month field (3rd) ' + "
          + FIELDS
          + "[2] + '"
          + SHAPES
          + "1-31' : !("
          + MONTH
          + ") ? 'the month field (4th) ' + "
          + FIELDS
          + "[3] + '"
          + SHAPES
          + "1-12 or jan-dec' : 'the day-of-week field (5th) ' + "
          + FIELDS
          + "[4] + '"
          + SHAPES
          + "0-6 or sun-sat (Sunday is 0; 7 is not accepted)'";

  /** The message of {@link #DAY_EXISTS}. */
  static final String DAY_EXISTS_MESSAGE =
      "'never runs: day ' + " + FIELDS + "[2] + ' does not occur in month ' + " + FIELDS + "[3]";
}
